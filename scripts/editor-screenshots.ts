/**
 * Retakes the screenshots of the README's editor walk-through (docs/images/editor-write.png):
 * `LOG_LEVEL=warn node_modules/.bin/bun scripts/editor-screenshots.ts`. It starts the embedded
 * service with its demo data in memory, with the SES v2 emulator on a free port, and walks
 * through it in Chromium (/usr/bin/chromium) as the demo editor: sign in with the emailed code,
 * write a story with a heading and an image uploaded for Northwind (through the internal API, as
 * the Images page does), preview it, submit it for review.
 */
import { mkdirSync } from "node:fs";
import { adminToken, loadConfig } from "@newsroom/shared/config";
import { launchChromium } from "@newsroom/shared/testing/browser";
import { eventually } from "@newsroom/shared/testing/eventually";
import { freePort } from "@newsroom/shared/testing/ports";
import { startSesEmulator } from "@newsroom/shared/testing/ses-emulator";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { startEmbedded } from "./embedded.ts";

const OUT = new URL("../docs/images/", import.meta.url).pathname;
const EDITOR = "editor@northwind.example";

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

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
  console.log(`docs/images/${name}.png`);
}

try {
  mkdirSync(OUT, { recursive: true });
  const context = await browser.newContext({
    baseURL: embedded.url,
    viewport: { width: 1100, height: 700 },
  });
  const page = await context.newPage();

  await page.goto("/app/sign-in");
  const signIn = page.locator('form[action="/app/sign-in"]');
  await signIn.getByLabel("Email address").fill(EDITOR);
  await signIn.getByRole("button", { name: "Email me a code" }).click();
  await page.waitForURL("**/app/sign-in/code");
  const code = await eventually(
    async () => {
      const [email] = await ses.to(EDITOR);
      return email ? /\b(\d{6})\b/.exec(email.body.text ?? "")?.[1] : undefined;
    },
    { message: "the sign-in code", timeoutMs: 10_000 },
  );
  const codeForm = page.locator('form[action="/app/sign-in/code"]');
  await codeForm.getByLabel("Email address").fill(EDITOR);
  await codeForm.getByLabel("Six-digit code").fill(code);
  await codeForm.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/app\/$/);

  const photo = await sharp({
    create: { width: 1200, height: 600, channels: 3, background: "#2b6f8f" },
  })
    .png()
    .toBuffer();
  const upload = new FormData();
  upload.append("file", new File([new Uint8Array(photo)], "harbour.png"));
  upload.append("alt", "The harbour office from the quay");
  upload.append("credit", "Photo: Northwind");
  upload.append("rights_holder", "Northwind Cooperative");
  const uploaded = await fetch(`${embedded.workspaceUrl}/internal/v1/orgs/northwind/assets`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken(config)}` },
    body: upload,
  });
  if (uploaded.status !== 201) throw new Error(`upload: ${await uploaded.text()}`);

  // Write: a paragraph, a heading and one of Northwind's images.
  await page.goto("/app/orgs/northwind/stories/new");
  await page.getByLabel("Title").fill("Our harbour office opens");
  await page.getByLabel("Text").fill("The office opens on *Monday*.");
  await page.getByLabel("New block").selectOption("heading");
  await page.getByRole("button", { name: "Add the block" }).click();
  await page.keyboard.type("Where to find us");
  await page.getByLabel("New block").selectOption("image");
  await page.getByRole("button", { name: "Add the block" }).click();
  await page
    .getByLabel("Image of the organization")
    .selectOption({ label: "The harbour office from the quay (not cleared yet)" });
  await shot(page, "editor-write");
  await page.getByRole("button", { name: "Create the story" }).click();
  await page.waitForURL(/\/edit\?done=created$/);
  const storyId = /stories\/([0-9a-f-]{36})/.exec(page.url())![1]!;

  // Preview on Northwind's newsroom, then submit for review.
  await page.getByRole("link", { name: /^On / }).first().click();
  await page.waitForURL(`**/app/stories/${storyId}/versions/1/preview*`);
  await page.goto(`/app/stories/${storyId}/edit`);
  await page.getByRole("button", { name: "Submit for review" }).click();
  await page.waitForURL(`**/app/stories/${storyId}?done=submitted`);
} finally {
  await browser.close();
  await embedded.stop();
  await ses.close();
}
