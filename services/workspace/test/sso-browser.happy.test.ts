import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, Page } from "playwright-core";
import { expectAccessible } from "./support/accessibility.ts";
import { type SsoHarness, ssoHarness } from "./support/sso.ts";
import { unique } from "./support/web-app.ts";

/**
 * Single sign-on in Chromium, under the app's real Content-Security-Policy: from the sign-in
 * page's second form, through the provider's login and consent pages, back signed in.
 */
const ssoForm = (page: Page) => page.locator('form[action="/app/sso"]');

describeInBrowser("single sign-on in Chromium", () => {
  let s: SsoHarness;
  let browser: Browser;

  beforeAll(async () => {
    s = await ssoHarness("sso-browser", "sso-browser.example");
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  test("a member signs in with their work email and lands on their organizations", async () => {
    const email = `${unique("member").split("@")[0]}@sso-browser.example`;
    await s.h.admin("POST", "/orgs/sso-browser/members", { email, role: "editor" });
    // The app's own CSP applies: forms may post only to the app, so the way to the provider
    // must not be a redirect of the form's post.
    const context = await browser.newContext({ baseURL: s.h.url });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    try {
      await page.goto("/app/sign-in");
      await ssoForm(page).getByLabel("Organization or work email address").fill(email);
      await ssoForm(page).getByRole("button", { name: "Continue with single sign-on" }).click();
      await page.waitForURL(`${s.provider.issuer}/**`);
      await page.locator('input[name="login"]').fill(email);
      await page.locator('input[name="password"]').fill("any");
      await page.locator('button[type="submit"]').click();
      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL(`${s.h.url}/app/`);
      expect(await page.locator("main").textContent()).toContain("Org sso-browser");
      expect(await page.locator(".who").textContent()).toContain(email);
    } finally {
      await context.close();
    }
  });

  test("the sign-in page with both forms, and the refusal page, are accessible", async () => {
    const context = await browser.newContext({ baseURL: s.h.url, bypassCSP: true });
    const page = await context.newPage();
    try {
      await page.goto("/app/sign-in");
      await expectAccessible(page);
      await ssoForm(page).getByLabel("Organization or work email address").fill("no-such-org");
      await ssoForm(page).getByRole("button", { name: "Continue with single sign-on" }).click();
      await page.waitForLoadState();
      expect(await page.locator("#field-organization-error").textContent()).toContain(
        "No single sign-on is set up",
      );
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
