import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import { eventually } from "@newsroom/shared/testing/eventually";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { expectAccessible } from "./support/accessibility.ts";
import {
  orgWithMembers,
  signInAs,
  unique,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/**
 * An owner's settings pages in Chromium: the newsletter (on, an origin, the embed snippet), hosted
 * sites and hostnames, members (invite with an email, change a role, remove after confirming, the
 * last owner kept) and the audit log that shows every change. Each page passes axe-core.
 */
describeInBrowser("an organization's settings pages in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  const base = "/app/orgs/setorg";

  /** Submits with a button (by its name) and answers the status of the page it lands on. */
  async function submit(name: string): Promise<number> {
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name, exact: true }).click(),
    ]);
    return response!.status();
  }

  const textOf = async (locator: Locator) => (await locator.textContent())?.trim();

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "setorg", 0);
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
    await signInAs(page, h, org.members.owner);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await h?.close();
  });

  test("the newsletter: turn it on, add and remove an origin, copy the embed snippet", async () => {
    await page.goto(base);
    await page.getByRole("link", { name: "Newsletter", exact: true }).click();
    await page.waitForURL(`**${base}/newsletter`);
    await expectAccessible(page);

    expect(await submit("Turn the newsletter on")).toBe(200);
    expect(await textOf(page.getByRole("status"))).toBe("The newsletter is on.");

    await page
      .getByLabel("Website origin", { exact: true })
      .fill("http://www.setorg.example/signup");
    expect(await submit("Add origin")).toBe(422);
    expect(await textOf(page.locator("#field-origin-error"))).toBe(
      "Write an https origin: https://host[:port], or on this machine http://localhost:<port> or http://127.0.0.1:<port>.",
    );
    expect(
      await page.getByLabel("Website origin", { exact: true }).getAttribute("aria-describedby"),
    ).toContain("field-origin-error");
    await expectAccessible(page);

    for (const origin of ["https://WWW.Setorg.example/", "https://shop.setorg.example:8443"]) {
      await page.getByLabel("Website origin", { exact: true }).fill(origin);
      expect(await submit("Add origin")).toBe(200);
    }
    await page.getByRole("cell", { name: "https://www.setorg.example", exact: true }).waitFor();
    const snippet = await page.getByLabel("Embed code").inputValue();
    expect(snippet).toContain(`action="http://localhost:`);
    expect(snippet).toContain("/v1/public/newsletter/setorg/subscribe");
    expect(snippet).toContain("<form data-newsletter");
    expect(snippet).toMatch(
      /<script src="http:\/\/localhost:\d+\/v1\/public\/newsletter\/embed\.js" defer><\/script>/,
    );
    await expectAccessible(page);

    // Removing asks first.
    expect(await submit("Remove https://shop.setorg.example:8443")).toBeLessThan(500);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
      "Remove a website origin",
    );
    await expectAccessible(page);
    expect(await submit("Remove https://shop.setorg.example:8443")).toBe(200);
    expect(await textOf(page.getByRole("status"))).toBe("The origin was removed.");

    const stored = await h.admin("GET", "/orgs/setorg");
    expect(stored.body).toMatchObject({
      newsletter_enabled: true,
      newsletter_origins: ["https://www.setorg.example"],
    });
  });

  test("sites: add one, add a hostname that stays pending until an operator activates it", async () => {
    await page.goto(`${base}/sites`);
    await page.getByText("No hosted site yet.").waitFor();
    await expectAccessible(page);

    await page.getByLabel("Site slug").fill("Bad Slug");
    await page.getByLabel("Name", { exact: true }).fill("Setorg News");
    await page.getByLabel("Publisher").fill("Setorg Ltd");
    expect(await submit("Add site")).toBe(422);
    await page.locator("#field-site-error").waitFor();
    await expectAccessible(page);

    await page.getByLabel("Site slug").fill("setorg-news");
    await page.getByLabel("Accent colour").fill("#aa3300");
    expect(await submit("Add site")).toBe(200);
    const section = page.getByRole("region", { name: "Setorg News" });
    expect(await textOf(section)).toContain("Setorg Ltd");
    expect(await textOf(section)).toContain("#aa3300");
    await section.getByRole("link", { name: /\/newsrooms\/setorg-news$/ }).waitFor();

    await page.getByLabel("Hostname", { exact: true }).fill("News.Setorg.example");
    expect(await submit("Add hostname")).toBe(200);
    const row = section.getByRole("row", { name: /news\.setorg\.example/ });
    expect(await textOf(row)).toContain("pending");
    expect(await textOf(row)).toContain("waits for an operator to confirm its certificate");
    await expectAccessible(page);

    await h.admin("POST", "/sites/setorg-news/hostnames/news.setorg.example/activate");
    await page.reload();
    expect(await textOf(row)).toContain("active");
    await section.getByRole("link", { name: "https://news.setorg.example" }).waitFor();
  });

  test("members: invite (the person gets an email), change a role, remove after confirming", async () => {
    const invited = unique("invited");
    await page.goto(`${base}/members`);
    await expectAccessible(page);
    await page.getByLabel("Email address", { exact: true }).fill(invited);
    await page.getByLabel("Role", { exact: true }).selectOption("editor");
    expect(await submit("Invite")).toBe(200);
    expect(await textOf(page.getByRole("status"))).toBe(
      "The person was added and told by email how to sign in.",
    );
    const email = await eventually(async () => (await h.ses.to(invited))[0], {
      message: "the email",
      timeoutMs: 10_000,
    });
    expect(email.subject).toBe("You were added to Org setorg on the newsroom workspace");
    expect(email.body.text).toContain(`${org.members.owner} added you to Org setorg as editor.`);
    expect(email.body.text).toContain(`Sign in at ${h.url}/app/sign-in`);

    await page.getByLabel(`Role of ${invited}`, { exact: true }).selectOption("approver");
    expect(await submit(`Change role of ${invited}`)).toBe(200);
    expect(await textOf(page.getByRole("status"))).toBe("The role was changed.");
    expect(await textOf(page.getByRole("row", { name: new RegExp(invited) }))).toContain(
      "approver",
    );

    expect(await submit(`Remove ${invited}`)).toBe(200);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Remove a member");
    await expectAccessible(page);
    expect(await submit(`Remove ${invited}`)).toBe(200);
    expect(await textOf(page.getByRole("status"))).toBe(
      "The person was removed from the organization.",
    );
    expect(await page.getByRole("cell", { name: invited }).count()).toBe(0);
  });

  test("the last owner can be neither demoted nor removed: the refusal sits beside the action", async () => {
    const owner = org.members.owner;
    await page.goto(`${base}/members`);
    await page.getByLabel(`Role of ${owner}`, { exact: true }).selectOption("admin");
    expect(await submit(`Change role of ${owner}`)).toBe(409);
    const error = page.getByRole("row", { name: new RegExp(owner) }).getByRole("alert");
    expect(await textOf(error)).toBe("This is the last owner: make someone else an owner first.");
    await expectAccessible(page);

    expect(await submit(`Remove ${owner}`)).toBe(409);
    await error.waitFor();
    await page.goto(`${base}/members`);
    const row = page.getByRole("row", { name: new RegExp(owner) });
    expect((await row.locator("td").allTextContents())[1]).toBe("owner");
  });

  test("the audit log: every change, who made it and when, newest first", async () => {
    await page.goto(base);
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.waitForURL(`**${base}/audit`);
    await expectAccessible(page);
    const rows = page.locator("tbody tr");
    const texts = await rows.allTextContents();
    const byOwner = texts.filter((text) => text.includes(org.members.owner));
    const expected = [
      "Member removed (approver)",
      "Member's role changed (editor → approver)",
      "Member added (editor)",
      "Hostname added (news.setorg.example)",
      "Site added",
      "Newsletter origin removed (https://shop.setorg.example:8443)",
      "Newsletter origin added (https://shop.setorg.example:8443)",
      "Newsletter origin added (https://www.setorg.example)",
      "Newsletter turned on",
    ];
    expect(byOwner.map((text) => expected.find((what) => text.includes(what)))).toEqual(expected);
    // The members added through the internal API: the operator.
    const byOperator = texts.filter((text) => text.includes("operator"));
    expect(byOperator.length).toBe(5);
    const [, who, what, subject] = await rows.last().locator("td").allTextContents();
    expect([who, what, subject]).toEqual(["operator", "Member added (owner)", org.members.owner]);
  });
});
