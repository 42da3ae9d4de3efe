import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import { freePort } from "@newsroom/shared/testing/ports";
import type { Browser } from "playwright-core";
import { type Embedded, startEmbedded } from "../../scripts/embedded.ts";

/** The API reference page at /docs renders the document without any request off this machine. */
let embedded: Embedded;

beforeAll(async () => {
  embedded = await startEmbedded(
    loadConfig({
      PGLITE_DIR: "memory",
      PORT: String(await freePort()),
      WORKSPACE_PORT: String(await freePort()),
    }),
    { seed: false },
  );
}, 60_000);

afterAll(() => embedded?.stop());

test("the page and its assets are served from this process, cached an hour", async () => {
  const page = await fetch(`${embedded.url}/docs`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  const html = await page.text();
  expect(html).toContain("/docs/assets/swagger-ui-bundle.js");
  expect(html).not.toMatch(/https?:\/\//);
  for (const asset of ["/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"]) {
    const response = await fetch(embedded.url + asset);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  }
  expect((await fetch(`${embedded.url}/docs/assets/..%2Fpackage.json`)).status).toBe(404);
  const document = await fetch(`${embedded.url}/v1/openapi.json`);
  expect(document.headers.get("cache-control")).toBe("public, max-age=3600");
  expect((await document.json()).openapi).toBe("3.1.0");
});

describeInBrowser("the reference page in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  test("renders the operations, asking nothing of any other host", async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (!["localhost", "127.0.0.1"].includes(url.hostname) && url.protocol.startsWith("http")) {
        elsewhere.push(request.url());
      }
    });
    await page.goto(`${embedded.url}/docs`);
    await page.getByText("Newsroom index").first().waitFor({ timeout: 20_000 });
    expect(await page.getByText("/v1/stories").count()).toBeGreaterThan(0);
    expect(await page.getByText("1.3.0").count()).toBeGreaterThan(0);
    expect(elsewhere).toEqual([]);
    await page.close();
  }, 40_000);
});
