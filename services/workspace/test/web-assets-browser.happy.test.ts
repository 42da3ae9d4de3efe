import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "./support/accessibility.ts";
import { jpegWithGps } from "./support/images.ts";
import { orgWithMembers, signInAs, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * The Images page in Chromium: an editor finds it in the organization's navigation, is told
 * beside the field what is missing, uploads a photo and sees its thumbnail; an approver clears
 * it. Each state passes axe-core, also at a phone's width (390 px) without sideways scrolling.
 */
describeInBrowser("the Images page in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  const base = "/app/orgs/imgorg";
  const photo = join(mkdtempSync(join(tmpdir(), "images-")), "harbour.jpg");

  async function submit(name: string): Promise<number> {
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name, exact: true }).click(),
    ]);
    return response!.status();
  }

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "imgorg", 0);
    writeFileSync(photo, await jpegWithGps(900, 600));
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
    await signInAs(page, h, org.members.editor);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await h?.close();
  });

  test("an editor uploads (alt text asked for beside its field), an approver clears", async () => {
    await page.goto(base);
    await page.getByRole("link", { name: "Images", exact: true }).click();
    await page.waitForURL(`**${base}/assets`);
    await expectAccessible(page);

    await page.getByLabel("Image file").setInputFiles(photo);
    expect(await submit("Upload image")).toBe(422);
    expect(await page.locator("#field-alt-error").textContent()).toContain("alt text is required");
    expect(await page.getByLabel("Alt text").getAttribute("aria-describedby")).toContain(
      "field-alt-error",
    );
    await expectAccessible(page);

    await page.getByLabel("Image file").setInputFiles(photo);
    await page.getByLabel("Alt text").fill("Boats in the harbour at dawn");
    await page.getByLabel("Credit line (optional)").fill("Photo: Demo");
    expect(await submit("Upload image")).toBe(200);
    const thumbnail = page.getByRole("img", { name: "Boats in the harbour at dawn" });
    await thumbnail.waitFor();
    expect(await thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(480);
    expect(await page.locator(".status").allTextContents()).toEqual(["uncleared"]);
    await expectAccessible(page);

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await expectAccessible(page);

    await context.close();
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
    await signInAs(page, h, org.members.approver);
    await page.goto(`${base}/assets`);
    const [cleared] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name: /^Clear for publication/ }).click(),
    ]);
    expect(cleared!.status()).toBe(200);
    expect(await page.getByRole("status").textContent()).toContain("The image was cleared");
    expect(await page.locator(".status").allTextContents()).toEqual(["cleared"]);
    await expectAccessible(page);
  });
});
