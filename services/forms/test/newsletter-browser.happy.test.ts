import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expectAccessible } from "@newsroom/shared/testing/accessibility";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import { updateOrganizationRow } from "@newsroom/shared/testing/builders";
import type { Browser } from "playwright-core";
import { digestSubscriber, newsletterOrg } from "./support/fixtures.ts";
import { address, envelope, random, tokenIn, unsubscribeLinkIn } from "./support/harness.ts";
import { formsWorld } from "./support/world.ts";

const ACCENT = "#d4145a";
const ACCENT_RGB = "rgb(212, 20, 90)";

/**
 * The organization's website: a page on another origin (another port) with the embed.js form,
 * as the README shows it. `submission_id` and `started_at` are rendered with the page.
 */
function websitePage(service: string, slug: string, pageUrl: string, extra = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme</title></head>
<body>
<form data-newsletter method="post" ${extra}
      action="${service}/v1/public/newsletter/${slug}/subscribe">
  <label>Email <input type="email" name="email" required></label>
  <label><input type="checkbox" name="consent" value="on" required> Send me the newsletter</label>
  <input type="hidden" name="submission_id" value="${crypto.randomUUID()}">
  <input type="hidden" name="started_at" value="${Date.now() - 10_000}">
  <input type="hidden" name="redirect" value="${pageUrl}">
  <div hidden><label>Fax <input name="fax" tabindex="-1" autocomplete="off"></label></div>
  <button>Subscribe</button>
  <p data-newsletter-status></p>
</form>
<script src="${service}/v1/public/newsletter/embed.js" defer></script>
</body></html>`;
}

describeInBrowser("newsletter pages in Chromium", () => {
  const { ses, contacts, forms, org, server } = formsWorld({
    contacts: true,
    org: { site: { accent: ACCENT } },
    serve: true,
  });
  let browser: Browser;
  let website: ReturnType<typeof Bun.serve>;
  let site: string;
  let pageVariant = "";

  beforeAll(async () => {
    website = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        const url = new URL(request.url);
        if (url.pathname !== "/newsletter") return new Response("not here", { status: 404 });
        return new Response(websitePage(server.url, org.slug, `${site}/newsletter`, pageVariant), {
          headers: { "content-type": "text/html; charset=utf-8" },
        });
      },
    });
    site = `http://127.0.0.1:${website.port}`;
    await updateOrganizationRow(forms.database.db, org.id, { newsletterOrigins: [site] });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    website?.stop(true);
  });

  const listOf = () => contacts.list(`org-${org.id}`);

  test("embed.js posts in place from another origin and shows the outcome", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${site}/newsletter`);
      const form = page.locator("form[data-newsletter]");
      await expect(form.getAttribute("data-newsletter-ready")).resolves.toBe("");

      const email = address("browser");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Send me the newsletter").check();
      await page.getByRole("button", { name: "Subscribe" }).click();
      await page.waitForSelector('form[data-newsletter-state="pending"]', { timeout: 10_000 });
      expect(await page.locator("[data-newsletter-status]").textContent()).toBe(
        "Almost done: check your inbox and confirm your subscription.",
      );
      expect(await page.locator("[data-newsletter-status]").getAttribute("role")).toBe("status");
      expect(page.url()).toBe(`${site}/newsletter`); // no navigation
      expect(await context.cookies()).toEqual([]);

      const [mail] = await ses.to(email);
      expect(mail?.subject).toBe(`Confirm your subscription to ${org.name}`);
      tokenIn(mail);
    } finally {
      await context.close();
    }
  }, 30_000);

  test("embed.js shows a refusal in place too", async () => {
    pageVariant = "novalidate";
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${site}/newsletter`);
      await page.waitForSelector("form[data-newsletter-ready]");
      await page.getByLabel("Email").fill("not an address");
      await page.getByRole("button", { name: "Subscribe" }).click();
      await page.waitForSelector('form[data-newsletter-state="invalid"]', { timeout: 10_000 });
      expect(await page.locator("[data-newsletter-status]").textContent()).toBe(
        "Please check your email address. Please tick the consent box.",
      );
    } finally {
      pageVariant = "";
      await context.close();
    }
  }, 30_000);

  test("without JavaScript a refusal returns to the form's redirect, naming what was wrong", async () => {
    pageVariant = "novalidate";
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${site}/newsletter`);
      await page.getByLabel("Email").fill("not an address");
      await page.getByLabel("Send me the newsletter").check();
      const back = `${site}/newsletter?newsletter=invalid&newsletter_fields=email`;
      await Promise.all([
        page.waitForURL(back, { timeout: 10_000 }),
        page.getByRole("button", { name: "Subscribe" }).click(),
      ]);
      // The same address with the script: the outcome shown, naming the field.
      const withScript = await browser.newContext();
      try {
        const shown = await withScript.newPage();
        await shown.goto(back);
        await shown.waitForSelector('form[data-newsletter-state="invalid"]', { timeout: 10_000 });
        expect(await shown.locator("[data-newsletter-status]").textContent()).toBe(
          "Please check your email address.",
        );
      } finally {
        await withScript.close();
      }
    } finally {
      pageVariant = "";
      await context.close();
    }
  }, 30_000);

  test("without JavaScript the form posts and comes back with ?newsletter=pending", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${site}/newsletter`);
      const email = address("nojs");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Send me the newsletter").check();
      await Promise.all([
        page.waitForURL(`${site}/newsletter?newsletter=pending`, { timeout: 10_000 }),
        page.getByRole("button", { name: "Subscribe" }).click(),
      ]);
      expect(await page.locator("form[data-newsletter-ready]").count()).toBe(0);
      const [mail] = await ses.to(email);
      expect(mail?.subject).toBe(`Confirm your subscription to ${org.name}`);
    } finally {
      await context.close();
    }
  }, 30_000);

  test("the confirmation page: the organization's accent, one button that confirms", async () => {
    const email = address("confirm");
    const subscribed = await forms.post(
      `/v1/public/newsletter/${org.slug}/subscribe`,
      { email, consent: true, ...envelope() },
      { headers: { origin: site, accept: "application/json" } },
    );
    expect(subscribed.status).toBe(202);
    const token = tokenIn((await ses.to(email))[0]);

    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    try {
      const page = await context.newPage();
      const response = await page.goto(`${server.url}/v1/public/newsletter/confirm?t=${token}`);
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe(`Confirm your subscription to ${org.name}`);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
        "Confirm your subscription",
      );
      const button = page.getByRole("button", { name: "Confirm subscription" });
      expect(await page.getByRole("button").count()).toBe(1);
      const style = await button.evaluate((element) => {
        const css = getComputedStyle(element);
        const main = getComputedStyle(document.querySelector("main")!);
        return { background: css.backgroundColor, color: css.color, border: main.borderTopColor };
      });
      expect(style).toEqual({
        background: ACCENT_RGB,
        color: "rgb(255, 255, 255)",
        border: ACCENT_RGB,
      });
      const shot = join(tmpdir(), `forms-confirm-${random()}.png`);
      await page.screenshot({ path: shot, fullPage: true });
      expect(existsSync(shot)).toBe(true);
      expect(statSync(shot).size).toBeGreaterThan(5_000);
      console.log(`confirmation page screenshot: ${shot}`);
      expect(listOf()?.has(email) ?? false).toBe(false); // opening it subscribes no one

      await Promise.all([page.waitForLoadState("load"), button.click()]);
      await page.waitForSelector("text=You are subscribed", { timeout: 10_000 });
      expect(page.url()).toBe(`${server.url}/v1/public/newsletter/confirm`);
      expect(listOf()?.get(email)).toBe(false);
      const welcome = (await ses.to(email)).filter((m) => m.subject.startsWith("You are"));
      expect(welcome).toHaveLength(1);
    } finally {
      await context.close();
    }
  }, 30_000);

  test("confirming a form-post sign-up returns to the website, which says so", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const email = address("roundtrip");
    try {
      const page = await context.newPage();
      await page.goto(`${site}/newsletter`);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Send me the newsletter").check();
      await Promise.all([
        page.waitForURL(`${site}/newsletter?newsletter=pending`),
        page.getByRole("button", { name: "Subscribe" }).click(),
      ]);
    } finally {
      await context.close();
    }
    const token = tokenIn((await ses.to(email))[0]);
    const withScript = await browser.newContext();
    try {
      const page = await withScript.newPage();
      await page.goto(`${server.url}/v1/public/newsletter/confirm?t=${token}`);
      await Promise.all([
        page.waitForURL(`${site}/newsletter?newsletter=confirmed`, { timeout: 10_000 }),
        page.getByRole("button", { name: "Confirm subscription" }).click(),
      ]);
      await page.waitForSelector('form[data-newsletter-state="confirmed"]');
      expect(await page.locator("[data-newsletter-status]").textContent()).toBe(
        "Your subscription is confirmed.",
      );
      expect(listOf()?.get(email)).toBe(false);
    } finally {
      await withScript.close();
    }
  }, 30_000);

  test("every page of the flows passes axe-core, light and dark, default accent and own", async () => {
    const plain = await newsletterOrg(forms.database.db, { site: {} });
    await updateOrganizationRow(forms.database.db, plain.id, { newsletterOrigins: [site] });
    const tokenFor = async (slug: string) => {
      const email = address("axe");
      await forms.post(
        `/v1/public/newsletter/${slug}/subscribe`,
        { email, consent: true, ...envelope() },
        { headers: { origin: site, accept: "application/json" } },
      );
      return tokenIn((await ses.to(email))[0]);
    };
    const digestEmail = address("axe-digest");
    await forms.post("/v1/public/newsletter/subscribe", {
      email: digestEmail,
      consent: true,
      ...envelope(),
    });
    const digestToken = tokenIn((await ses.to(digestEmail))[0]);
    for (const colorScheme of ["light", "dark"] as const) {
      // bypassCSP: only so that the test can inject axe-core into script-free pages.
      const context = await browser.newContext({ colorScheme, bypassCSP: true });
      try {
        const page = await context.newPage();
        for (const slug of [plain.slug, org.slug]) {
          await page.goto(`${server.url}/v1/public/newsletter/confirm?t=${await tokenFor(slug)}`);
          await expectAccessible(page);
          await Promise.all([
            page.waitForSelector("text=You are subscribed"),
            page.getByRole("button", { name: "Confirm subscription" }).click(),
          ]);
          await expectAccessible(page);
        }
        await page.goto(`${server.url}/v1/public/newsletter/confirm?t=not-a-token`);
        await expectAccessible(page);
        await page.goto(`${server.url}/v1/public/newsletter/confirm?t=${digestToken}`);
        await expectAccessible(page);
        if (colorScheme === "light") {
          await page.getByRole("button").click();
          await page.waitForLoadState("load");
          await expectAccessible(page);
        }
        const welcome = (await ses.to(digestEmail)).find((m) => m.subject.startsWith("Welcome"));
        if (welcome) {
          await page.goto(`${server.url}${unsubscribeLinkIn(welcome)}`);
          await expectAccessible(page);
        }
      } finally {
        await context.close();
      }
    }
  }, 60_000);

  test("the digest's unsubscribe page: one button that unsubscribes", async () => {
    const email = address("digest");
    const welcome = await digestSubscriber(forms, ses, email);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}${unsubscribeLinkIn(welcome)}`);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
        "Unsubscribe from the weekly digest",
      );
      await page.getByRole("button", { name: "Unsubscribe" }).click();
      await page.waitForSelector("text=You are unsubscribed", { timeout: 10_000 });
      const again = await page.goto(`${server.url}${unsubscribeLinkIn(welcome)}`);
      expect(again?.status()).toBe(200);
      expect(await page.getByRole("button").count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 30_000);
});
