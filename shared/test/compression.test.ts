import { describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { encodingFor } from "../src/http/compression.ts";
import { edgeInProcess } from "../src/testing/edge.ts";

const TEXT = JSON.stringify({
  items: Array.from({ length: 200 }, (_, i) => ({ id: i, title: "A story" })),
});

/** The public edge in front of an app answering `body` (with its length when `sized`). */
function edgeAnswering(body: string, type: string, sized = false) {
  return edgeInProcess(
    () => {
      const headers: Record<string, string> = { "content-type": type, etag: '"made-here"' };
      if (sized) headers["content-length"] = String(new TextEncoder().encode(body).byteLength);
      return new Response(body, { headers });
    },
    { trustedProxies: "", compress: true },
  );
}

const get = (headers: Record<string, string> = {}, method = "GET") =>
  new Request("http://localhost/v1/public/x", { method, headers });

describe("Accept-Encoding", () => {
  test("br first, then gzip; q=0 refuses; none or identity is no encoding", () => {
    expect(encodingFor("gzip, deflate, br")).toBe("br");
    expect(encodingFor("gzip")).toBe("gzip");
    expect(encodingFor("br;q=0, gzip;q=0.5")).toBe("gzip");
    expect(encodingFor("br;q=0.000, gzip;q=0")).toBeNull();
    expect(encodingFor("*")).toBe("br");
    expect(encodingFor("identity")).toBeNull();
    expect(encodingFor(null)).toBeNull();
  });
});

describe("compression at the public edge, for answers not kept", () => {
  test("a text answer above 1 KB in gzip when asked, with its ETag and Vary", async () => {
    for (const sized of [true, false]) {
      const handle = edgeAnswering(TEXT, "application/json; charset=utf-8", sized);
      const answer = await handle(get({ "accept-encoding": "gzip" }));
      expect(answer.headers.get("content-encoding")).toBe("gzip");
      expect(answer.headers.get("etag")).toBe('"made-here-gz"');
      expect(answer.headers.get("vary")).toBe("Accept-Encoding");
      const body = new Uint8Array(await answer.arrayBuffer());
      expect(answer.headers.get("content-length")).toBe(String(body.byteLength));
      expect(gunzipSync(body).toString()).toBe(TEXT);
      const head = await handle(get({ "accept-encoding": "gzip" }, "HEAD"));
      expect(head.headers.get("content-encoding")).toBe("gzip");
      expect(head.headers.get("content-length")).toBe(String(body.byteLength));
    }
  });

  test("not asked, small, or not text: as it is", async () => {
    const plain = await edgeAnswering(TEXT, "application/json")(get());
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(TEXT);
    const small = await edgeAnswering("{}", "application/json")(get({ "accept-encoding": "br" }));
    expect(small.headers.get("content-encoding")).toBeNull();
    const image = await edgeAnswering(TEXT, "image/png")(get({ "accept-encoding": "br" }));
    expect(image.headers.get("content-encoding")).toBeNull();
    // An edge of a service behind the gateway never compresses.
    const inner = edgeInProcess(
      () => new Response(TEXT, { headers: { "content-type": "text/html" } }),
    );
    expect(
      (await inner(get({ "accept-encoding": "br" }))).headers.get("content-encoding"),
    ).toBeNull();
  });
});
