import { afterAll, beforeAll, expect, test } from "bun:test";
import { expectAccessible } from "@newsroom/shared/testing/accessibility";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser } from "playwright-core";
import { address, unsubscribeLinkIn } from "./support/harness.ts";
import { emailsTo, statusRow, statusTokenIn, subscribeToStatus } from "./support/status.ts";
import { formsWorld } from "./support/world.ts";

/**
 * The status subscription's pages in Chromium at 390 px, light and dark: the confirmation page's
 * button subscribes, the unsubscribe page's button unsubscribes; each page passes axe-core.
 */
describeInBrowser("status subscription pages in Chromium", () => {
  const { ses, forms, server } = formsWorld({ serve: true });
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  for (const colorScheme of ["light", "dark"] as const) {
    test(`confirm, then unsubscribe, with the pages' buttons (${colorScheme})`, async () => {
      const email = address(`browser-${colorScheme}`);
      expect((await subscribeToStatus(forms, email)).status).toBe(202);
      const [confirmation] = await emailsTo(ses, email, "Confirm your subscription to status");
      // bypassCSP: only so that the test can inject axe-core into script-free pages.
      const context = await browser.newContext({
        colorScheme,
        bypassCSP: true,
        viewport: { width: 390, height: 844 },
      });
      try {
        const page = await context.newPage();
        await page.goto(`${server.url}/v1/public/status/confirm?t=${statusTokenIn(confirmation)}`);
        await expectAccessible(page);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          390,
        );
        await Promise.all([
          page.waitForSelector("text=You are subscribed"),
          page.getByRole("button", { name: "Confirm subscription" }).click(),
        ]);
        await expectAccessible(page);
        expect(await statusRow(forms, email)).toBeDefined();

        const [welcome] = await emailsTo(ses, email, "You are subscribed to status updates");
        await page.goto(`${server.url}${unsubscribeLinkIn(welcome)}`);
        expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
          "Unsubscribe from status updates",
        );
        await expectAccessible(page);
        await Promise.all([
          page.waitForSelector("text=You are unsubscribed"),
          page.getByRole("button", { name: "Unsubscribe" }).click(),
        ]);
        await expectAccessible(page);
        expect(await statusRow(forms, email)).toBeUndefined();

        await page.goto(`${server.url}/v1/public/status/confirm?t=not-a-token`);
        await expectAccessible(page);
      } finally {
        await context.close();
      }
    }, 60_000);
  }
});
