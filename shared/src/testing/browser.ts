import { describe, test } from "bun:test";
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`); Playwright never downloads a browser here. */
export const CHROMIUM = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 });
}

/**
 * `describe` when Chromium is installed. Without it the block is skipped, except under CI=true,
 * where a missing browser is a failure, not a skip.
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  if (process.env.CI === "true") {
    describe(name, () => {
      test("Chromium is installed", () => {
        throw new Error(`CI=true but ${CHROMIUM} is missing: apt-get install -y chromium`);
      });
    });
    return;
  }
  describe.skip(name, body);
}
