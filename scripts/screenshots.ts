/**
 * Retakes the screenshots of the README's "Try it" walk-through (docs/screenshots/*.png):
 * `LOG_LEVEL=warn node_modules/.bin/bun scripts/screenshots.ts`. It starts the embedded service with its demo
 * data in memory (nothing is written to ./.data), with the SES v2 emulator on a free port, and
 * walks through it in Chromium (/usr/bin/chromium) as the demo owner: sign in with the emailed
 * code, approve a story, publish it, see it on the site's newsroom page, create a key and use it.
 */
import type { Page } from "playwright-core";
import {
  enterSignInCode,
  requestSignInCode,
  shot as shotIn,
  startForScreenshots,
  VIEWPORT,
} from "./screenshot-kit.ts";

const OWNER = "owner@northwind.example";
const ORG = "northwind";

const run = await startForScreenshots();
const { embedded, browser, ses } = run;

/** Chromium shows a JSON answer on one line: indent it, as its "Pretty-print" box would. */
async function prettyJson(page: Page): Promise<void> {
  await page.evaluate(() => {
    const pre = document.querySelector("pre");
    if (pre) pre.textContent = JSON.stringify(JSON.parse(pre.textContent ?? "null"), null, 2);
    document.querySelector(".json-formatter-container")?.remove();
  });
}

const shot = (page: Page, name: string) => shotIn(page, "screenshots", name);

try {
  const context = await run.context();
  const page = await context.newPage();

  // 1. Sign in: the code arrives in the SES emulator's inbox.
  const code = await requestSignInCode(run, page, OWNER, () => shot(page, "01-sign-in"));
  const inbox = await context.newPage();
  await inbox.goto(`${ses.url}/store`);
  await prettyJson(inbox);
  await shot(inbox, "02-inbox");
  await inbox.close();
  await enterSignInCode(page, OWNER, code);

  // 2. The review queue; approve the first story.
  await page.goto(`/app/orgs/${ORG}/approvals`);
  await shot(page, "03-review-queue");
  const first = page.locator('tbody a[href^="/app/stories/"]').first();
  const storyId = (await first.getAttribute("href"))!.split("/").pop()!;
  await first.click();
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(`**/app/stories/${storyId}?done=approved`);
  await shot(page, "04-approved");

  // 3. Approval does not publish: Publish does, and the page links the story on the newsroom.
  await page.getByRole("button", { name: "Publish" }).click();
  await page.waitForURL(`**/app/stories/${storyId}?done=published`);
  await page.locator(`a[href*="/newsrooms/${ORG}/"]`).first().click();
  await page.waitForURL(`**/newsrooms/${ORG}/**`);
  await shot(page, "05-published");

  // 4. A key made in the browser, shown once; then the client API with it.
  await page.goto(`/app/orgs/${ORG}/keys`);
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.getByLabel("API key", { exact: true }).inputValue();
  await shot(page, "06-key-created");
  const api = await browser.newContext({
    baseURL: embedded.url,
    viewport: VIEWPORT,
    extraHTTPHeaders: { authorization: `Bearer ${key}` },
  });
  const stories = await api.newPage();
  await stories.goto("/v1/stories?limit=3");
  await prettyJson(stories);
  await shot(stories, "07-client-api");
  await api.close();

  // 5. The organization's members and its audit log.
  await page.goto(`/app/orgs/${ORG}/members`);
  await shot(page, "08-members");
  await page.goto(`/app/orgs/${ORG}/audit`);
  await shot(page, "09-audit-log");
  await context.close();
} finally {
  await run.stop();
}
