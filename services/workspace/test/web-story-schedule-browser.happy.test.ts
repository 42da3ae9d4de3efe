import { afterAll, beforeAll, expect, test } from "bun:test";
import { stories } from "@newsroom/shared/db/schema";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "./support/accessibility.ts";
import { orgWithMembers, storyInReview, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * Scheduling in Chromium, in a browser whose zone is Asia/Tokyo: the form's zone is the browser's
 * (the page's script), the scheduled time shows in Tokyo and UTC, Unschedule asks first. Every
 * page passes axe-core and fits 390 px.
 */
describeInBrowser("scheduling a story in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let storyId: string;
  let approver: string;

  beforeAll(async () => {
    h = await webHarness();
    const org = await orgWithMembers(h, "sched-browser", 0);
    approver = org.members.approver;
    storyId = await storyInReview(h, "sched-browser", "launch-day");
    await h.admin("POST", `/stories/${storyId}/transitions`, {
      action: "approve",
      actor_role: "approver",
    });
    browser = await launchChromium();
    // bypassCSP only so that the test can inject axe-core; the page's own script runs either way.
    context = await browser.newContext({
      baseURL: h.url,
      bypassCSP: true,
      timezoneId: "Asia/Tokyo",
    });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await h?.close();
  });

  test("schedule in the browser's zone, see it in Tokyo and UTC, then unschedule", async () => {
    await page.goto("/app/sign-in");
    await page.locator('form[action="/app/sign-in"]').getByLabel("Email address").fill(approver);
    await page.getByRole("button", { name: "Email me a code" }).click();
    await page.waitForURL("**/app/sign-in/code");
    const codeForm = page.locator('form[action="/app/sign-in/code"]');
    await codeForm.getByLabel("Email address").fill(approver);
    await codeForm.getByLabel("Six-digit code").fill(await h.codeFor(approver));
    await codeForm.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/app\/$/);

    await page.goto(`/app/stories/${storyId}`);
    const zone = page.getByLabel("Time zone");
    await expect(zone.inputValue()).resolves.toBe("Asia/Tokyo");
    await expectAccessible(page);

    // Two hours ahead, on Tokyo's clock.
    const at = new Date(Math.ceil((Date.now() + 2 * 3_600_000) / 60_000) * 60_000);
    const date = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(at);
    const time = new Intl.DateTimeFormat("en-GB", {
      timeZone: "Asia/Tokyo",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(at);
    await page.getByLabel("Date").fill(date);
    await page.getByLabel("Time", { exact: true }).fill(time);
    await page.getByRole("button", { name: "Schedule" }).click();
    await page.waitForURL(`**/app/stories/${storyId}?tz=Asia%2FTokyo&done=scheduled`);
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain(`${date} ${time} (Asia/Tokyo, UTC+09:00)`);
    expect(text).toContain(`${at.toISOString().slice(0, 16).replace("T", " ")} UTC`);
    await expectAccessible(page);
    const [row] = await h.runtime.database.db.select().from(stories).where(eq(stories.id, storyId));
    expect(row!.publishAt?.toISOString()).toBe(at.toISOString());

    await page.getByRole("button", { name: "Unschedule" }).click();
    await page.waitForURL(`**/app/stories/${storyId}/unschedule`);
    await expectAccessible(page);
    await page.getByRole("button", { name: "Unschedule" }).click();
    await page.waitForURL(`**/app/stories/${storyId}?done=unscheduled`);
    expect(await page.getByRole("button", { name: "Schedule" }).count()).toBe(1);
  });
});
