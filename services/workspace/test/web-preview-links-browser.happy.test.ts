import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "./support/accessibility.ts";
import {
  orgWithMembers,
  signInAs,
  storyInReview,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/**
 * Preview links in Chromium: an approver opens an approved story, creates a link for a
 * journalist (the address shown once), finds it listed, and revokes it after a confirmation.
 * Each state passes axe-core, also at a phone's width (390 px) without sideways scrolling.
 */
describeInBrowser("preview links in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let storyId: string;

  async function submit(name: string): Promise<number> {
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name, exact: true }).click(),
    ]);
    return response!.status();
  }

  async function fitsAPhone(): Promise<void> {
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await expectAccessible(page);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  beforeAll(async () => {
    h = await webHarness();
    const org = await orgWithMembers(h, "armage", 0);
    storyId = await storyInReview(h, "armage", "launch-day");
    await h.admin("POST", `/stories/${storyId}/transitions`, { action: "approve" });
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
    await signInAs(page, h, org.members.approver);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await h?.close();
  });

  test("an approver creates a link for a journalist and revokes it", async () => {
    await page.goto(`/app/stories/${storyId}`);
    await page.getByRole("heading", { name: "Preview links" }).waitFor();
    await expectAccessible(page);

    // A label is asked for beside its field.
    expect(await submit("Create preview link")).toBe(422);
    expect(await page.locator("#field-label-error").textContent()).toContain("Say who");
    expect(
      await page.getByLabel("For", { exact: true }).getAttribute("aria-describedby"),
    ).toContain("field-label-error");
    await expectAccessible(page);

    await page.getByLabel("For", { exact: true }).fill("The Daily Planet, Lois Lane");
    expect(await submit("Create preview link")).toBe(200);
    expect(page.url()).toMatch(/\/app\/preview-links\/[0-9a-f-]{36}\/created$/);
    const url = await page.getByLabel("Preview link").inputValue();
    expect(url).toMatch(/\/newsroom\/preview\/[A-Za-z0-9_-]{43}$/);
    await expectAccessible(page);
    await fitsAPhone();

    await page.getByRole("link", { name: "Back to the story" }).click();
    await page.waitForURL(`**/app/stories/${storyId}`);
    const row = page.getByRole("row", { name: /The Daily Planet/ });
    expect(await row.locator(".status").textContent()).toBe("active");
    expect(await page.content()).not.toContain(url);
    await fitsAPhone();

    await row.getByRole("link", { name: /Revoke/ }).click();
    await page.waitForURL("**/revoke");
    await expectAccessible(page);
    expect(await submit("Revoke link")).toBe(200);
    expect(await page.getByRole("status").textContent()).toContain("The preview link was revoked");
    expect(
      await page
        .getByRole("row", { name: /The Daily Planet/ })
        .locator(".status")
        .textContent(),
    ).toBe("revoked");
    await expectAccessible(page);
  });
});
