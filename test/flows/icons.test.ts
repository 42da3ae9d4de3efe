import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { HOUSE_ICON, iconSvg } from "@newsroom/shared/icon";
import { freePort } from "@newsroom/shared/testing/ports";
import { type Embedded, startEmbedded } from "../../scripts/embedded.ts";

/**
 * `/favicon.ico` on every kind of host, through the gateway's server, and an icon named in the
 * head of every page: the house icon on the service's host and the house newsroom, a hosted
 * site's own (its accent and initial) at its path and on its client's hostname.
 */
let embedded: Embedded;
const CLIENT_HOST = "news.northwind.example";
let item = "";
let topic = "";

beforeAll(async () => {
  embedded = await startEmbedded(
    loadConfig({
      PGLITE_DIR: "memory",
      PORT: String(await freePort()),
      WORKSPACE_PORT: String(await freePort()),
    }),
  );
  const index = await (await fetch(`${embedded.url}/v1/public/newsroom`)).json();
  item = index.items[0].slug;
  topic = index.topics[0].slug;
}, 60_000);

afterAll(async () => {
  await embedded?.stop();
});

const get = (path: string, host?: string, method = "GET") =>
  fetch(`${embedded.url}${path}`, { method, headers: host ? { host } : {} });

async function expectIcon(path: string, host?: string): Promise<string> {
  const answer = await get(path, host);
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toStartWith("image/svg+xml");
  expect(answer.headers.get("cache-control")).toContain("max-age=86400");
  const body = await answer.text();
  expect(body).toStartWith("<svg");
  const head = await get(path, host, "HEAD");
  expect(head.status).toBe(200);
  expect(head.headers.get("content-type")).toBe(answer.headers.get("content-type"));
  expect(await head.text()).toBe("");
  return body;
}

describe("/favicon.ico", () => {
  test("the service's host and the house newsroom answer the house icon", async () => {
    expect(await expectIcon("/favicon.ico")).toBe(iconSvg(HOUSE_ICON));
    expect(await expectIcon("/newsroom/favicon.ico")).toBe(iconSvg(HOUSE_ICON));
  });

  test("a hosted newsroom answers its own: its accent and initial, at its path and hostname", async () => {
    const atPath = await expectIcon("/newsrooms/northwind/favicon.ico");
    expect(atPath).toContain('fill="#0b6e4f"');
    expect(atPath).toContain(">N</text>");
    expect(atPath).not.toBe(iconSvg(HOUSE_ICON));
    expect(await expectIcon("/favicon.ico", CLIENT_HOST)).toBe(atPath);
  });

  test("an unknown site or hostname has no icon", async () => {
    expect((await get("/newsrooms/no-such-site/favicon.ico")).status).toBe(404);
    expect((await get("/favicon.ico", "news.unknown.example")).status).toBe(404);
  });
});

describe("every page's head names an icon", () => {
  const iconLink =
    /<head>[\s\S]*<link rel="icon" href="[^"]+" type="image\/svg\+xml">[\s\S]*<\/head>/;

  test("public pages, on every host", async () => {
    const pages: [string, string | undefined][] = [
      ["/newsroom", undefined],
      [`/newsroom/${item}`, undefined],
      [`/newsroom/topics/${topic}`, undefined],
      ["/newsroom/no-such-story", undefined],
      ["/newsrooms/northwind", undefined],
      ["/", CLIENT_HOST],
      ["/no-such-story", CLIENT_HOST],
    ];
    for (const [path, host] of pages) {
      const page = await (await get(path, host)).text();
      expect(page, `${host ?? ""}${path}`).toMatch(iconLink);
    }
    const hosted = await (await get("/newsrooms/northwind")).text();
    expect(hosted).toContain(encodeURIComponent('fill="#0b6e4f"'));
  });

  test("the service's index page, the API reference and the workspace", async () => {
    for (const path of ["/", "/docs", "/app/sign-in"]) {
      const page = await (await get(path)).text();
      expect(page, path).toMatch(iconLink);
    }
  });
});
