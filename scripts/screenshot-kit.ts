/**
 * What the screenshot scripts share: the embedded service with its demo data in memory (nothing
 * is written to ./.data) and the SES v2 emulator on a free port, Chromium (/usr/bin/chromium) at
 * 1100x700, signing in with the emailed code, and writing a screenshot under docs/.
 */
import { mkdirSync } from "node:fs";
import { loadConfig } from "@newsroom/shared/config";
import { launchChromium } from "@newsroom/shared/testing/browser";
import { eventually } from "@newsroom/shared/testing/eventually";
import { freePort } from "@newsroom/shared/testing/ports";
import { startSesEmulator } from "@newsroom/shared/testing/ses-emulator";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startEmbedded } from "./embedded.ts";

export const VIEWPORT = { width: 1100, height: 700 };

export async function startForScreenshots() {
  const ses = await startSesEmulator();
  const config = loadConfig({
    PGLITE_DIR: "memory",
    PORT: String(await freePort()),
    WORKSPACE_PORT: String(await freePort()),
    SES_ENDPOINT: ses.url,
    FORMS_FROM_EMAIL: "newsroom@localhost.example",
    FORMS_TEAM_EMAIL: "team@localhost.example",
  });
  const embedded = await startEmbedded(config);
  const browser: Browser = await launchChromium();
  return {
    ses,
    config,
    embedded,
    browser,
    /** A browser context on the service, at the screenshots' size. */
    context: (): Promise<BrowserContext> =>
      browser.newContext({ baseURL: embedded.url, viewport: VIEWPORT }),
    async stop(): Promise<void> {
      await browser.close();
      await embedded.stop();
      await ses.close();
    },
  };
}

export type ScreenshotRun = Awaited<ReturnType<typeof startForScreenshots>>;

/** Writes `docs/{folder}/{name}.png` and says so. */
export async function shot(
  page: Page,
  folder: "screenshots" | "images",
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  const out = new URL(`../docs/${folder}/`, import.meta.url).pathname;
  mkdirSync(out, { recursive: true });
  await page.screenshot({ path: `${out}${name}.png`, fullPage: options.fullPage ?? false });
  console.log(`docs/${folder}/${name}.png`);
}

/** Asks for a code for `email` on the sign-in page; answers the code from the inbox. */
export async function requestSignInCode(
  run: ScreenshotRun,
  page: Page,
  email: string,
  beforeAsking?: () => Promise<void>,
): Promise<string> {
  await page.goto("/app/sign-in");
  const signIn = page.locator('form[action="/app/sign-in"]');
  await signIn.getByLabel("Email address").fill(email);
  await beforeAsking?.();
  await signIn.getByRole("button", { name: "Email me a code" }).click();
  await page.waitForURL("**/app/sign-in/code");
  return eventually(
    async () => {
      const [mail] = await run.ses.to(email);
      return mail ? /\b(\d{6})\b/.exec(mail.body.text ?? "")?.[1] : undefined;
    },
    { message: "the sign-in code", timeoutMs: 10_000 },
  );
}

/** Signs in with the code: the page lands on the workspace's home. */
export async function enterSignInCode(page: Page, email: string, code: string): Promise<void> {
  const codeForm = page.locator('form[action="/app/sign-in/code"]');
  await codeForm.getByLabel("Email address").fill(email);
  await codeForm.getByLabel("Six-digit code").fill(code);
  await codeForm.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/app\/$/);
}
