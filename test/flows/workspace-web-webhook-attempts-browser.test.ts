import { afterAll, beforeAll, expect, test } from "bun:test";
import { webhookAttempts, webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "../../services/workspace/test/support/accessibility.ts";
import {
  orgWithMembers,
  signInAs,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * An owner in Chromium opens a delivery from the endpoint's log and reads its attempts (time,
 * HTTP status, duration, reason, the answer's first 1 KiB), then resends it. Each page is
 * checked with axe-core.
 */
describeInBrowser("attempt details in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let owner: string;
  let endpointId: string;
  const deliveryId = newId();

  beforeAll(async () => {
    h = await webHarness({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
    const org = await orgWithMembers(h, "details", 0);
    owner = org.members.owner;
    // A port where nothing listens: the resent delivery is refused, not delivered.
    endpointId = (
      await h.admin("POST", "/orgs/details/webhook_endpoints", {
        url: "http://127.0.0.1:9/hooks",
        events: ["story.published"],
      })
    ).body.id;
    const organizationId = (await h.admin("GET", "/orgs/details")).body.id;
    const at = new Date(Date.now() - 120_000);
    const db = h.embedded.runtime.database.db;
    await db.insert(webhookDeliveries).values({
      id: deliveryId,
      organizationId,
      endpointId,
      eventId: newId(),
      eventType: "story.published",
      status: "failed",
      attempts: 1,
      lastStatusCode: 429,
      lastDurationMs: 42,
      lastError: "receiver answered 429",
      eventCreatedAt: at,
      createdAt: at,
    });
    await db.insert(webhookAttempts).values({
      id: newId(),
      organizationId,
      deliveryId,
      attempt: 1,
      at,
      statusCode: 429,
      durationMs: 42,
      responseBody: '{"error":"slow down","retry_in":120}',
      reason: "receiver answered 429",
    });
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no other script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await h?.close();
  });

  test("sign in, open the delivery from the log, read its attempts, resend it", async () => {
    await signInAs(page, h, owner);

    await page.goto(`/app/webhook-endpoints/${endpointId}`);
    await expectAccessible(page);
    await page.getByRole("link", { name: /attempt details/ }).click();
    await page.waitForURL(`**/app/webhook-deliveries/${deliveryId}`);
    const row = page.getByRole("row").filter({ hasText: "slow down" });
    await expect(row.getByRole("cell").nth(2).textContent()).resolves.toBe("429");
    await expect(row.getByRole("cell").nth(3).textContent()).resolves.toBe("42 ms");
    await expect(row.getByRole("cell").nth(4).textContent()).resolves.toBe("receiver answered 429");
    await expectAccessible(page);

    await page.getByRole("button", { name: /^Resend/ }).click();
    await page.waitForURL(`**/app/webhook-endpoints/${endpointId}?done=delivery-resent`);
    await expectAccessible(page);
  });
});
