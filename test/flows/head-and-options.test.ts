import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { adminToken, type Config, loadConfig } from "@newsroom/shared/config";
import { edgeInProcess } from "@newsroom/shared/testing/edge";
import { freePort } from "@newsroom/shared/testing/ports";
import startSesEmulator from "aws-ses-v2-local";
import { type Embedded, startEmbedded } from "../../scripts/embedded.ts";

/**
 * HEAD answers as GET would on every GET route of every app (RFC 9110 section 9.3.2): the same
 * status and headers, `Content-Length` the GET body's length, no body. Swept over the routes each
 * app's router knows, with real ids from the demo data, and over the documents and pages found
 * before routing, through the gateway's own server. OPTIONS, like any method a path does not
 * answer, is 405 with `Allow`.
 */
let embedded: Embedded;
let ses: { close(): void };
let config: Config;
const values: Record<string, string> = {
  site: "northwind",
  hostname: "news.northwind.example",
  org: "northwind",
  id: "x",
};
const CLIENT_HOST = "news.northwind.example";

/** Headers that differ from one answer to the next: their presence is compared, not values. */
const PER_ANSWER = new Set(["x-request-id", "date", "age", "set-cookie", "ratelimit"]);

beforeAll(async () => {
  const sesPort = await freePort();
  ses = await startSesEmulator({ host: "127.0.0.1", port: sesPort });
  config = loadConfig({
    PGLITE_DIR: "memory",
    PORT: String(await freePort()),
    WORKSPACE_PORT: String(await freePort()),
    SES_ENDPOINT: `http://127.0.0.1:${sesPort}`,
    FORMS_FROM_EMAIL: "newsroom@example.com",
    FORMS_TEAM_EMAIL: "team@example.com",
  });
  embedded = await startEmbedded(config);
  const index = await (await fetch(`${embedded.url}/v1/public/newsroom`)).json();
  values.slug = index.items[0].slug;
  values.topic = index.topics[0].slug;
  const stories = await fetch(`${embedded.url}/v1/stories?limit=1`, {
    headers: { authorization: `Bearer ${embedded.testKey}` },
  });
  values.id = (await stories.json()).data[0]?.id ?? "x";
}, 60_000);

afterAll(async () => {
  await embedded?.stop();
  ses?.close();
});

/** A route's path with its parameters filled from the demo data (`*` as a page of the index). */
function filled(path: string): string {
  return path
    .replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
      encodeURIComponent(
        (name === "slug" && path.includes("/topics/") ? values.topic : values[name]) ?? "x",
      ),
    )
    .replace(/\*$/, "");
}

function authorizationFor(app: string): Record<string, string> {
  if (app === "client-api") return { authorization: `Bearer ${embedded.testKey}` };
  if (app === "workspace") return { authorization: `Bearer ${adminToken(config)}` };
  return {};
}

/** The GET and the HEAD of one target agree: status, headers, length; the HEAD has no body. */
async function expectHeadAsGet(
  get: Response,
  head: Response,
  ignored: string[] = [],
): Promise<void> {
  const body = new Uint8Array(await get.arrayBuffer());
  expect(await head.text()).toBe("");
  expect(head.status).toBe(get.status);
  const shown = (response: Response) => {
    const lines: string[] = [];
    response.headers.forEach((value, name) => {
      if (ignored.includes(name)) return;
      lines.push(`${name}: ${PER_ANSWER.has(name) ? "(per answer)" : value}`);
    });
    return lines.sort();
  };
  const getHeaders = shown(get).filter((line) => !line.startsWith("content-length:"));
  expect(shown(head).filter((line) => !line.startsWith("content-length:"))).toEqual(getHeaders);
  if (get.status !== 304 && get.status !== 204) {
    expect(head.headers.get("content-length") ?? "0").toBe(String(body.byteLength));
  }
}

describe("every GET route of every app", () => {
  test("answers HEAD as it answers GET", async () => {
    let swept = 0;
    for (const app of embedded.apps) {
      const handle = edgeInProcess(app.handle);
      const paths = new Set(app.routes.filter((r) => r.method === "GET").map((r) => r.path));
      for (const path of paths) {
        const target = filled(path);
        const headers = { host: "localhost", ...authorizationFor(app.name) };
        const get = await handle(new Request(`http://localhost${target}`, { headers }));
        const head = await handle(
          new Request(`http://localhost${target}`, { method: "HEAD", headers }),
        );
        try {
          // In-process, no server dates the GET.
          await expectHeadAsGet(get, head, ["date"]);
        } catch (error) {
          throw new Error(`${app.name} HEAD ${target} (${path}): ${String(error)}`);
        }
        swept += 1;
      }
    }
    // Every app's routes were found: the public reads, the client API, the workspace, ...
    expect(swept).toBeGreaterThan(40);
  }, 60_000);
});

/** Documents and pages found before routing, on the service's host and a client's. */
const EARLY_TARGETS: [string, string | null][] = [
  ["/robots.txt", null],
  ["/sitemap.xml", null],
  ["/newsroom", null],
  ["/newsroom/feed.xml", null],
  ["/newsroom/feed.json", null],
  ["/newsrooms/northwind", null],
  ["/newsrooms/northwind/feed.xml", null],
  ["/newsrooms/northwind/feed.json", null],
  ["/newsrooms/northwind/sitemap.xml", null],
  ["/v1/openapi.json", null],
  ["/", CLIENT_HOST],
  ["/robots.txt", CLIENT_HOST],
  ["/sitemap.xml", CLIENT_HOST],
  ["/feed.xml", CLIENT_HOST],
  ["/feed.json", CLIENT_HOST],
  ["/no-such-page", CLIENT_HOST],
];

describe("through the gateway's server", () => {
  for (const [target, host] of EARLY_TARGETS) {
    test(`HEAD ${host ?? ""}${target} answers as GET, and OPTIONS is 405 with Allow`, async () => {
      const url = `${embedded.url}${target}`;
      // As sent plain and compressed: the HEAD says the compressed length.
      for (const encoding of ["identity", "gzip, br"]) {
        const headers: Record<string, string> = { "accept-encoding": encoding };
        if (host) headers.host = host;
        const get = await fetch(url, { headers, decompress: false });
        expect(get.status).toBeLessThan(500);
        const head = await fetch(url, { method: "HEAD", headers, decompress: false });
        await expectHeadAsGet(get, head);
      }
      const headers: Record<string, string> = host ? { host } : {};
      const options = await fetch(url, { method: "OPTIONS", headers });
      expect(options.status).toBe(405);
      expect(options.headers.get("allow")).toBe("GET, HEAD");
    });
  }

  test("a HEAD is answered from the answer a GET left in the gateway's cache", async () => {
    const url = `${embedded.url}/v1/public/newsroom/${values.slug}`;
    const get = await fetch(url, { headers: { "accept-encoding": "identity" } });
    await get.arrayBuffer();
    const head = await fetch(url, { method: "HEAD", headers: { "accept-encoding": "identity" } });
    // Age is the cache's: only a kept answer has it.
    expect(head.headers.get("age")).not.toBeNull();
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
  });
});
