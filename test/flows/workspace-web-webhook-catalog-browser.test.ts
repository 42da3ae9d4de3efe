import { afterAll, beforeAll, expect, test } from "bun:test";
import { newWebhookSecret } from "@newsroom/shared/secret-box";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { expectAccessible } from "../../services/workspace/test/support/accessibility.ts";
import {
  orgWithMembers,
  signInAs,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/** The payload catalog in Chromium: the page and a checked signature pass axe-core. */
describeInBrowser("the webhook payload catalog in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;

  async function submit(name: string): Promise<number> {
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name, exact: true }).click(),
    ]);
    return response!.status();
  }

  beforeAll(async () => {
    h = await webHarness({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
    org = await orgWithMembers(h, "catorg", 0);
    await h.admin("POST", "/orgs/catorg/webhook_endpoints", {
      url: "http://127.0.0.1:9/hook",
      events: ["story.published"],
    });
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

  test("from the endpoints page to the catalog; a wrong secret is said in an alert", async () => {
    await page.goto("/app/orgs/catorg/webhook-endpoints");
    await page.getByRole("link", { name: "payload catalog" }).click();
    await page.waitForURL("**/app/orgs/catorg/webhook-catalog");
    await page.getByText("Schema of story.published").click();
    await expectAccessible(page);

    const body = '{"id":"evt","object":"event"}';
    const at = new Date();
    const signature = new Webhook(newWebhookSecret()).sign("evt", at, body);
    await page
      .getByLabel("Headers", { exact: true })
      .fill(
        `webhook-id: evt\nwebhook-timestamp: ${Math.floor(at.getTime() / 1000)}\nwebhook-signature: ${signature}`,
      );
    await page.getByLabel("Body", { exact: true }).fill(body);
    expect(await submit("Check the signature")).toBe(200);
    expect(await page.getByRole("alert").textContent()).toContain("Wrong secret");
    await expectAccessible(page);
  });
});
