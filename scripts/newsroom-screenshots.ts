/**
 * Retakes the README's screenshots of the newsroom pages (docs/screenshots/newsroom-index.png and
 * newsroom-item.png): `LOG_LEVEL=warn node_modules/.bin/bun scripts/newsroom-screenshots.ts`. It
 * starts the embedded service with its demo data in memory (nothing is written to ./.data) and
 * opens the house newsroom's index and its newest story in Chromium (/usr/bin/chromium), 1100x700.
 * Only this machine is asked: any other address (images on a CDN) is left out.
 */
import { shot, startForScreenshots } from "./screenshot-kit.ts";

const PLACEHOLDER = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="300"><rect width="640" height="300" fill="#dbe4f3"/><path d="M0 300 L220 140 L360 240 L460 170 L640 300Z" fill="#a9bde0"/><circle cx="520" cy="80" r="36" fill="#f4f6fb"/></svg>`;

const run = await startForScreenshots();
const { embedded } = run;

try {
  const context = await run.context();
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
  await shot(page, "screenshots", "newsroom-index");
  const newest = await page.locator("#latest-heading ~ .cards a").first().getAttribute("href");
  if (!newest) throw new Error("the demo newsroom has no published story");
  await page.goto(new URL(newest).pathname);
  await shot(page, "screenshots", "newsroom-item");
  await context.close();
} finally {
  await run.stop();
}
