import { expect } from "bun:test";
import { expectAccessible as expectAxeClean } from "@newsroom/shared/testing/accessibility";
import type { Page } from "playwright-core";

/** The phone the web app must fit: nothing wider than its screen, nothing to scroll sideways. */
export const PHONE = { width: 390, height: 844 };

/**
 * Every page a workspace browser test reaches: axe-core finds no serious or critical violation,
 * and at 390 px wide the page does not scroll sideways (a wide table scrolls within its own box).
 */
export async function expectAccessible(page: Page): Promise<void> {
  await expectAxeClean(page);
  await expectFitsPhone(page);
}

export async function expectFitsPhone(page: Page): Promise<void> {
  const before = page.viewportSize();
  await page.setViewportSize(PHONE);
  try {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect({ url: page.url(), width: Math.max(width, PHONE.width) }).toEqual({
      url: page.url(),
      width: PHONE.width,
    });
  } finally {
    if (before) await page.setViewportSize(before);
  }
}
