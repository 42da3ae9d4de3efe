import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "./support/accessibility.ts";
import { signInAs, unique, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * The status page's staff pages in Chromium: a house admin opens an incident (its errors beside
 * their fields first), posts an update, resolves it, and sets a component's state; the public
 * page shows each step. Every page passes axe-core and fits a phone (390 px).
 */
describeInBrowser("the status page's staff pages in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  async function submit(name: string): Promise<number> {
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name, exact: true }).click(),
    ]);
    return response!.status();
  }

  beforeAll(async () => {
    h = await webHarness();
    await h.admin("POST", "/orgs", { slug: "armage", name: "House" });
    const email = unique("staff");
    await h.admin("POST", "/orgs/armage/members", { email, role: "admin" });
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the pages' CSP allows no script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
    await signInAs(page, h, email);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await h?.close();
  });

  test("open an incident, update and resolve it, and override a component", async () => {
    await page.goto("/app/status");
    await page.getByRole("heading", { name: "Components" }).waitFor();
    await expectAccessible(page);

    await page.getByRole("link", { name: "Open an incident" }).click();
    await page.getByLabel("Name").waitFor();
    await expectAccessible(page);
    // Nothing filled in: each error beside its field.
    expect(await submit("Open incident")).toBe(422);
    expect(await page.locator("#field-name-error").textContent()).toBe("Fill this in.");
    expect(await page.getByLabel("Message").getAttribute("aria-describedby")).toContain(
      "field-body-error",
    );
    await expectAccessible(page);

    await page.getByLabel("Name").fill("Forms are slow");
    await page.getByLabel("Impact").selectOption("minor");
    await page.getByLabel("Message").fill("Sending takes a minute; we are on it.");
    await page.getByLabel("Forms and newsletters").selectOption("degraded_performance");
    expect(await submit("Open incident")).toBe(200);
    expect(page.url()).toMatch(/\/app\/status\/incidents\/[0-9a-f-]{36}\?done=status-posted$/);
    await expectAccessible(page);

    await page.getByLabel("Status").selectOption("resolved");
    await page.getByLabel("Message").fill("Sending is quick again.");
    expect(await submit("Post update")).toBe(200);
    await expectAccessible(page);

    // The public page: the resolved incident among the past ones, forms operational.
    await page.goto("/status");
    await page.getByRole("heading", { name: "Past incidents" }).waitFor();
    expect(await page.getByRole("link", { name: "Forms are slow" }).count()).toBe(1);
    await expectAccessible(page);

    await page.goto("/app/status");
    await page.getByLabel("Show Workspace as").selectOption("under_maintenance");
    await page.getByLabel("Note shown on the page").last().fill("Moving to a new database.");
    expect(await submit("Save Workspace")).toBe(200);
    // Another address than before: the browser keeps the page it read for 30 s.
    await page.goto("/status?after=override");
    expect(await page.locator("#main").textContent()).toContain("Moving to a new database.");
    expect(await page.locator("#main").textContent()).toContain("Service Under Maintenance");
    await expectAccessible(page);
  }, 90_000);

  test("the subscribe form's outcomes on the public page: the error beside its field, the notice", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/status?subscribed=invalid");
    const field = page.getByLabel("Email");
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#subscribe-email-error").textContent()).toContain(
      "Enter an email address",
    );
    expect(await field.getAttribute("aria-describedby")).toBe("subscribe-email-error");
    await expectAccessible(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );

    await page.goto("/status?subscribed=1");
    expect(await page.getByRole("status").textContent()).toContain("Check your inbox");
    expect(await page.getByLabel("Email").getAttribute("aria-invalid")).toBeNull();
    await expectAccessible(page);
  }, 60_000);
});
