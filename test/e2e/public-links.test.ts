import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { freePort } from "@newsroom/shared/testing/ports";
import { type Embedded, startEmbedded } from "../../scripts/embedded.ts";

/**
 * Without PUBLIC_BASE_URL and NEWSROOM_HOST, links point at the port actually served, never at
 * the default 3000.
 */
let embedded: Embedded;
let port = 0;

beforeAll(async () => {
  port = await freePort();
  embedded = await startEmbedded(
    loadConfig({
      PGLITE_DIR: "memory",
      PORT: String(port),
      WORKSPACE_PORT: String(await freePort()),
    }),
  );
}, 60_000);

afterAll(() => embedded?.stop());

describe("an embedded start on another PORT", () => {
  test("public items link to that port", async () => {
    const index = await (await fetch(`${embedded.url}/v1/public/newsroom`)).json();
    const urls: string[] = index.items.map((item: { url: string }) => item.url);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(`http://localhost:${port}/`)).toBe(true);
  });

  test("sitemap entries link to that port", async () => {
    const sitemap = await (await fetch(`${embedded.url}/v1/public/sitemap/newsroom`)).json();
    const locations: string[] = sitemap.entries.map((entry: { loc: string }) => entry.loc);
    expect(locations.length).toBeGreaterThan(0);
    for (const loc of locations) expect(loc.startsWith(`http://localhost:${port}/`)).toBe(true);
  });
});
