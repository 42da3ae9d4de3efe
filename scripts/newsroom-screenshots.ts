/**
 * Retakes the README's screenshots of the newsroom pages (docs/screenshots/newsroom-index.png and
 * newsroom-item.png): `LOG_LEVEL=warn node_modules/.bin/bun scripts/newsroom-screenshots.ts`. It
 * starts the embedded service with its demo data in memory (nothing is written to ./.data) and
 * opens the house newsroom's index and its newest story in Chromium (/usr/bin/chromium), 1100x700.
 * Only this machine is asked: any other address (images on a CDN) is left out.
 */
import { mkdirSync } from "node:fs";
import { loadConfig } from "@newsroom/shared/config";
import { launchChromium } from "@newsroom/shared/testing/browser";
import { freePort } from "@newsroom/shared/testing/ports";
import type { Page } from "playwright-core";
import { startEmbedded } from "./embedded.ts";

const PLACEHOLDER = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="300"><rect width="640" height="300" fill="#dbe4f3"/><path d="M0 300 L220 140 L360 240 L460 170 L640 300Z" fill="#a9bde0"/><circle cx="520" cy="80" r="36" fill="#f4f6fb"/></svg>`;
const OUT = new URL("../docs/screenshots/", import.meta.url).pathname;

const config = loadConfig({
  PGLITE_DIR: "memory",
  PORT: String(await freePort()),
  WORKSPACE_PORT: String(await freePort()),
});
const embedded = await startEmbedded(config);
const browser = await launchChromium();

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${OUT}${name}.png` });
  console.log(`docs/screenshots/${name}.png`);
}

try {
  mkdirSync(OUT, { recursive: true });
  const context = await browser.newContext({
    baseURL: embedded.url,
    viewport: { width: 1100, height: 700 },
  });
  await context.route("**/*", (route) => {
    if (route.request().url().startsWith(embedded.url)) return route.continue();
    // The demo's images live on a CDN that is not asked: a plain tile stands in for each.
    if (route.request().resourceType() === "image") {
      return route.fulfill({ contentType: "image/svg+xml", body: PLACEHOLDER });
    }
    return route.abort();
  });
  const page = await context.newPage();
  await page.goto("/newsroom");
  await shot(page, "newsroom-index");
  const newest = await page.locator("#latest-heading ~ .cards a").first().getAttribute("href");
  if (!newest) throw new Error("the demo newsroom has no published story");
  await page.goto(new URL(newest).pathname);
  await shot(page, "newsroom-item");
  await context.close();
} finally {
  await browser.close();
  await embedded.stop();
}
