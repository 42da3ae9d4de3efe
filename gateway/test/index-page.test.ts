import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { expectAccessible } from "@newsroom/shared/testing/accessibility";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser } from "playwright-core";
import { createGateway } from "../src/app.ts";

/**
 * `GET /` on the service's own host: a page of links (the newsroom, the web app, the API
 * reference, and in development the local inbox), not a JSON 404. A client's hostname keeps its
 * own `/`, its newsroom page.
 */
function gateway(env: Record<string, string>, serviceEnv?: "production") {
  const loaded = loadConfig({ PUBLIC_BASE_URL: "http://localhost:3000", ...env });
  const config = { ...loaded, SERVICE_ENV: serviceEnv ?? loaded.SERVICE_ENV };
  const app = createGateway({
    config,
    mode: "embedded",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: { "public-read": async () => new Response("client page") },
    readinessChecks: [],
  });
  return edge((request) => app.handle(request), { trustedProxies: "" });
}

const get = (handle: ReturnType<typeof gateway>, host = "localhost:3000", method = "GET") =>
  handle(new Request(`http://${host}/`, { method, headers: { host } }));

const hrefs = async (response: Response) =>
  [...(await response.text()).matchAll(/href="([^"]+)"/g)].map((match) => match[1]);

describe("GET / on the service's host", () => {
  test("in development: an HTML page linking the newsroom, the web app, the reference and the inbox", async () => {
    const handle = gateway({ SES_ENDPOINT: "http://127.0.0.1:8005" });
    const response = await get(handle);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(await hrefs(response)).toEqual([
      "/favicon.ico",
      "/newsroom",
      "http://localhost:3000/newsrooms",
      "/app/",
      "/docs",
      "/v1/openapi.json",
      "http://127.0.0.1:8005/",
      "/health",
    ]);
  });

  test("outside development, or without an emulator, no inbox link", async () => {
    for (const handle of [
      gateway({ SES_ENDPOINT: "http://127.0.0.1:8005" }, "production"),
      gateway({}),
    ]) {
      const links = await hrefs(await get(handle));
      expect(links).toContain("/app/");
      expect(links.some((link) => link?.includes("8005"))).toBe(false);
    }
  });

  test("a client's hostname keeps its own / (its newsroom page); another method is a 404", async () => {
    const handle = gateway({});
    expect(await (await get(handle, "news.client.example")).text()).toBe("client page");
    const post = await get(handle, "localhost:3000", "POST");
    expect(post.status).toBe(404);
    expect((await post.json()).error.code).toBe("not_found");
  });
});

describeInBrowser("the index page in Chromium", () => {
  let browser: Browser;
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(async () => {
    browser = await launchChromium();
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: gateway({}) });
  });
  afterAll(async () => {
    await browser?.close();
    server?.stop(true);
  });

  test("is accessible and fits a 390 px phone", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    await page.goto(`http://127.0.0.1:${server.port}/`);
    await expectAccessible(page);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.close();
  }, 60_000);
});
