/**
 * Retakes the screenshots of the README's editor walk-through (docs/images/editor-write.png):
 * `LOG_LEVEL=warn node_modules/.bin/bun scripts/editor-screenshots.ts`. It starts the embedded
 * service with its demo data in memory, with the SES v2 emulator on a free port, and walks
 * through it in Chromium (/usr/bin/chromium) as the demo editor: sign in with the emailed code,
 * write a story with a heading and an image uploaded for Northwind (through the internal API, as
 * the Images page does), preview it, submit it for review.
 */
import { adminToken } from "@newsroom/shared/config";
import sharp from "sharp";
import { enterSignInCode, requestSignInCode, shot, startForScreenshots } from "./screenshot-kit.ts";

const EDITOR = "editor@northwind.example";

const run = await startForScreenshots();
const { config, embedded } = run;

try {
  const page = await (await run.context()).newPage();
  await enterSignInCode(page, EDITOR, await requestSignInCode(run, page, EDITOR));

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
  await shot(page, "images", "editor-write", { fullPage: true });
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
  await run.stop();
}
