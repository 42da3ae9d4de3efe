/**
 * Retakes the screenshots of the README's "Try it" walk-through (docs/screenshots/*.png):
 * `LOG_LEVEL=warn node_modules/.bin/bun scripts/screenshots.ts`. It starts the embedded service with its demo
 * data in memory (nothing is written to ./.data), with the SES v2 emulator on a free port, and
 * walks through it in Chromium (/usr/bin/chromium) as the demo owner: sign in with the emailed
 * code, approve a story, publish it, see it on the site's newsroom page, create a key and use it.
 */
import { mkdirSync } from "node:fs";
import { loadConfig } from "@newsroom/shared/config";
import { launchChromium } from "@newsroom/shared/testing/browser";
import { eventually } from "@newsroom/shared/testing/eventually";
import { freePort } from "@newsroom/shared/testing/ports";
import { startSesEmulator } from "@newsroom/shared/testing/ses-emulator";
import type { Page } from "playwright-core";
import { startEmbedded } from "./embedded.ts";

const OUT = new URL("../docs/screenshots/", import.meta.url).pathname;
const OWNER = "owner@northwind.example";
const ORG = "northwind";

const ses = await startSesEmulator();
const config = loadConfig({
  PGLITE_DIR: "memory",
  PORT: String(await freePort()),
  WORKSPACE_PORT: String(await freePort()),
  SES_ENDPOINT: ses.url,
  FORMS_FROM_EMAIL: "newsroom@localhost.example",
  FORMS_TEAM_EMAIL: "team@localhost.example",
});
const embedded = await startEmbedded(config);
const browser = await launchChromium();

/** Chromium shows a JSON answer on one line: indent it, as its "Pretty-print" box would. */
async function prettyJson(page: Page): Promise<void> {
  await page.evaluate(() => {
    const pre = document.querySelector("pre");
    if (pre) pre.textContent = JSON.stringify(JSON.parse(pre.textContent ?? "null"), null, 2);
    document.querySelector(".json-formatter-container")?.remove();
  });
}

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
  const page = await context.newPage();

  // 1. Sign in: the code arrives in the SES emulator's inbox.
  await page.goto("/app/sign-in");
  const signIn = page.locator('form[action="/app/sign-in"]');
  await signIn.getByLabel("Email address").fill(OWNER);
  await shot(page, "01-sign-in");
  await signIn.getByRole("button", { name: "Email me a code" }).click();
  await page.waitForURL("**/app/sign-in/code");
  const code = await eventually(
    async () => {
      const [email] = await ses.to(OWNER);
      return email ? /\b(\d{6})\b/.exec(email.body.text ?? "")?.[1] : undefined;
    },
    { message: "the sign-in code", timeoutMs: 10_000 },
  );
  const inbox = await context.newPage();
  await inbox.goto(`${ses.url}/store`);
  await prettyJson(inbox);
  await shot(inbox, "02-inbox");
  await inbox.close();
  const codeForm = page.locator('form[action="/app/sign-in/code"]');
  await codeForm.getByLabel("Email address").fill(OWNER);
  await codeForm.getByLabel("Six-digit code").fill(code);
  await codeForm.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/app\/$/);

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
    viewport: { width: 1100, height: 700 },
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
  await browser.close();
  await embedded.stop();
  await ses.close();
}
