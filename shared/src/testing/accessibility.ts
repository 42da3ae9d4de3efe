import { expect } from "bun:test";
import axe from "axe-core";
import type { Page } from "playwright-core";

/**
 * Runs axe-core on the page: no serious or critical violation (colour contrast included). A
 * page whose CSP allows no script needs its browser context opened with `bypassCSP: true`, only
 * so that the test can inject axe-core.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    const result = await run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help }));
  });
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect({ url: page.url(), serious }).toEqual({ url: page.url(), serious: [] });
}
