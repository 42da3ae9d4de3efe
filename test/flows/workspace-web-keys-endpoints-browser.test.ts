import { afterAll, beforeAll, expect, test } from "bun:test";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { expectAccessible } from "../../services/workspace/test/support/accessibility.ts";
import {
  orgWithMembers,
  signInAs,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * An owner in Chromium: creates an API key (shown once, copied with the button), reads stories
 * with it, revokes it after the confirmation (then it is refused); registers a webhook endpoint
 * on a receiver on 127.0.0.1, sends the test event, and the receiver verifies its signature with
 * the secret shown once; changes its rate and order. Every page is checked with axe-core.
 */
describeInBrowser("API keys and webhook endpoints in Chromium", () => {
  let h: WebHarness;
  let receiver: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;

  const readStories = (key: string) =>
    fetch(`${h.url}/v1/stories`, { headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    h = await webHarness({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
    receiver = startReceiver();
    org = await orgWithMembers(h, "acme", 0);
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no other script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: h.url });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    receiver?.stop();
    await h?.close();
  });

  test("sign in as the owner", async () => {
    await signInAs(page, h, org.members.owner);
  });

  test("create a key, use it, revoke it after the confirmation: then it is refused", async () => {
    await page.goto("/app/orgs/acme");
    await page.getByRole("link", { name: "API keys" }).click();
    await page.waitForURL("**/app/orgs/acme/keys");
    await expectAccessible(page);
    await page.getByLabel("approvals:read").check();
    await page.getByLabel("30 days").check();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForSelector("text=Your new API key");
    await expectAccessible(page);

    const field = page.getByLabel("API key", { exact: true });
    expect(await field.getAttribute("readonly")).not.toBeNull();
    const key = await field.inputValue();
    expect(key).toMatch(/^armk_test_[A-Za-z0-9_-]{43}$/);
    expect(await page.textContent("main")).toContain("will not be shown again");
    await page.getByRole("button", { name: "Copy" }).click();
    await eventually(async () => (await page.textContent("#secret-copied")) === "Copied.", {
      message: "the copy confirmation",
      timeoutMs: 5_000,
    });
    // The button itself says so.
    expect(await page.locator("[data-copy=secret]").textContent()).toBe("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    // A reload shows the key no more, and creates none.
    await page.reload();
    expect(await page.textContent("main")).not.toContain(key);
    expect(await page.textContent("main")).toContain("is not shown again");
    await expectAccessible(page);

    expect((await readStories(key)).status).toBe(200);

    await page.goto("/app/orgs/acme/keys");
    expect(await page.textContent("main")).not.toContain(key);
    await page.getByRole("link", { name: `Revoke armk_test_…${key.slice(-4)}` }).click();
    await page.waitForURL("**/revoke");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Revoke key" }).click();
    await page.waitForURL("**/app/orgs/acme/keys?done=key-revoked");
    expect(await page.getByRole("status").textContent()).toContain("The key was revoked");
    await expectAccessible(page);
    expect(await page.locator("tbody .status").first().textContent()).toBe("revoked");
    expect((await readStories(key)).status).toBe(401);
  });

  test("register an endpoint, send the test event: its signature verifies with the secret shown once", async () => {
    await page.getByRole("link", { name: "Webhook endpoints" }).click();
    await page.waitForURL("**/app/orgs/acme/webhook-endpoints");
    await expectAccessible(page);
    await page.getByLabel("URL").fill(receiver.url("/hooks"));
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.waitForSelector("text=Your new webhook endpoint");
    await expectAccessible(page);
    const secret = await page.getByLabel("Signing secret").inputValue();
    expect(secret).toStartWith("whsec_");

    await page.getByRole("link", { name: "Go to the endpoint" }).click();
    await page.waitForURL(/\/app\/webhook-endpoints\/[0-9a-f-]+$/);
    await expectAccessible(page);
    expect(await page.textContent("main")).not.toContain(secret);
    await page.getByRole("button", { name: "Send test event" }).click();
    // The webhooks service sends it at once and says how the receiver took it.
    // As the command line says it: the outcome, the receiver's HTTP status and the time taken.
    const status = page.locator("[role=status]", { hasText: "Test event" });
    await status.waitFor();
    const outcome = await status.textContent();
    expect(outcome).toMatch(/^Test event accepted: HTTP 2\d\d in \d+ ms\./);
    expect(outcome).toContain("your receiver accepted it");
    await expectAccessible(page);
    // The outcome came sealed to this session and is shown once: not again on a reload, and an
    // address that names an outcome shows none.
    const endpointAddress = page.url();
    expect(endpointAddress).not.toContain("tested");
    await page.reload();
    expect(await page.textContent("main")).not.toContain("Test event");
    await page.goto(`${endpointAddress}?tested=failed&status_code=500&duration_ms=1`);
    expect(await page.textContent("main")).not.toContain("Test event");

    const [hit] = await eventually(
      async () => (receiver.at("/hooks").length > 0 ? receiver.at("/hooks") : undefined),
      { message: "the test event at the receiver", timeoutMs: 10_000 },
    );
    const headers = Object.fromEntries(
      ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [
        name,
        hit!.headers.get(name) ?? "",
      ]),
    );
    const payload = new Webhook(secret).verify(hit!.body, headers) as { type: string };
    expect(payload.type).toBe("webhook.test");
  });

  test("the rate and order: refused beside the field, then saved and shown", async () => {
    await page.getByRole("link", { name: "Change rate and order" }).click();
    await page.waitForURL("**/options");
    await expectAccessible(page);
    const rate = page.getByLabel("Deliveries per second at most (optional)");
    await rate.fill("5000");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForSelector("#field-rate_limit_per_second-error");
    await expectAccessible(page);
    // On a phone, with the error shown: nothing wider than the screen.
    const wide = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    if (wide) await page.setViewportSize(wide);
    await page.getByLabel("Deliveries per second at most (optional)").fill("12");
    await page.locator('input[name="ordering"][value="story"]').check();
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL("**?done=endpoint-options-changed");
    expect(await page.textContent("main")).toContain("at most 12 deliveries a second");
    await expectAccessible(page);
  });

  test("disable, enable, and delete after the confirmation", async () => {
    await page.getByRole("button", { name: "Disable" }).click();
    await page.waitForSelector("text=disabled by your organization");
    await page.getByRole("button", { name: "Enable" }).click();
    // Enabling offers to recover the deliveries that failed while the endpoint was off.
    await page.waitForURL("**/recover?enabled=1");
    await expectAccessible(page);
    await page.getByRole("link", { name: "Back to the endpoint" }).click();
    await page.waitForSelector("button:has-text('Disable')");
    await page.getByRole("link", { name: "Delete this endpoint" }).click();
    await page.waitForURL("**/delete");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    await page.waitForURL("**/app/orgs/acme/webhook-endpoints?done=endpoint-deleted");
    expect(await page.textContent("main")).toContain("No endpoints yet.");
  });

  test("the page that asks for a new code is accessible too", async () => {
    await page.goto("/app/sign-in/fresh?return_to=%2Fapp%2Forgs%2Facme%2Fkeys");
    await expectAccessible(page);
    await page.getByRole("button", { name: /Email a code/ }).click();
    await page.waitForURL("**sent=1");
    await expectAccessible(page);
  });
});
