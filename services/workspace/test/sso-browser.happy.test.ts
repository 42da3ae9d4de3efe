import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, Page } from "playwright-core";
import { expectAccessible } from "./support/accessibility.ts";
import { publishDomainRecord, type SsoHarness, ssoHarness } from "./support/sso.ts";
import { signInAs, unique } from "./support/web-app.ts";

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

  test("a house owner's settings page: a new domain's record, verified with the button; accessible", async () => {
    await s.h.admin("POST", "/orgs", { slug: "armage", name: "House" });
    const owner = unique("house-owner");
    await s.h.admin("POST", "/orgs/armage/members", { email: owner, role: "owner" });
    await s.h.admin("PUT", "/orgs/sso-browser/sso", {
      issuer: s.provider.issuer,
      client_id: s.provider.clientId,
      allowed_domains: ["sso-browser.example", "second-browser.example"],
      enabled: true,
    });
    const context = await browser.newContext({ baseURL: s.h.url, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    try {
      await signInAs(page, s.h, owner);
      await page.goto("/app/orgs/sso-browser/sso");
      expect(await page.locator("main").textContent()).toContain(
        "_newsroom-verify.second-browser.example",
      );
      await expectAccessible(page);
      await publishDomainRecord(s.h, s.dns, "sso-browser", "second-browser.example");
      await page
        .locator("form", { hasText: "second-browser.example" })
        .getByRole("button", { name: /Verify/ })
        .click();
      await page.waitForLoadState();
      const listed = await s.h.admin("GET", "/orgs/sso-browser/sso/domains");
      const second = listed.body.data.find(
        (d: { domain: string }) => d.domain === "second-browser.example",
      );
      expect(second.status).toBe("verified");
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });

  test("signed in by single sign-on, an organization joined since asks for a code: that page is accessible", async () => {
    const email = `${unique("bound").split("@")[0]}@sso-browser.example`;
    await s.h.admin("POST", "/orgs/sso-browser/members", { email, role: "editor" });
    const context = await browser.newContext({ baseURL: s.h.url, bypassCSP: true });
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
      await expectAccessible(page);
      // Added to another organization meanwhile: this session does not reach it without a code.
      await s.h.admin("POST", "/orgs", { slug: "sso-elsewhere", name: "Elsewhere" });
      await s.h.admin("POST", "/orgs/sso-elsewhere/members", { email, role: "viewer" });
      await page.goto("/app/orgs/sso-elsewhere");
      await page.waitForURL("**/app/sign-in/fresh**");
      expect(await page.locator("main").textContent()).toContain("single sign-on");
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});
