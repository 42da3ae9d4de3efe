/**
 * Lighthouse on the three public page types: `LOG_LEVEL=warn node_modules/.bin/bun
 * scripts/lighthouse.ts`. Starts the embedded service with its demo data in memory (nothing is
 * written to ./.data), then runs Lighthouse (fetched by npx, not a dependency) with Chromium
 * (CHROME_PATH, default /usr/bin/chromium) on the house newsroom's index, its newest story and a
 * hosted newsroom, and prints each category's score (0-100). Not run in CI: it needs the
 * registry once and takes a minute. Exits 1 when a run fails.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@newsroom/shared/config";
import { freePort } from "@newsroom/shared/testing/ports";
import { startEmbedded } from "./embedded.ts";

const LIGHTHOUSE = "lighthouse@12.8.2";
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];
const CHROME_PATH = process.env.CHROME_PATH ?? "/usr/bin/chromium";

interface Report {
  categories: Record<string, { score: number | null }>;
}

/** Run beside the server, never blocking it: the pages are served by this same process. */
async function lighthouse(url: string, out: string): Promise<Report> {
  const run = Bun.spawn(
    [
      "npx",
      "--yes",
      LIGHTHOUSE,
      url,
      "--quiet",
      "--output=json",
      `--output-path=${out}`,
      `--only-categories=${CATEGORIES.join(",")}`,
      "--chrome-flags=--headless --no-sandbox --disable-gpu",
    ],
    { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, CHROME_PATH } },
  );
  const status = await run.exited;
  if (status !== 0) throw new Error(`lighthouse exited ${status} on ${url}`);
  return JSON.parse(readFileSync(out, "utf8")) as Report;
}

const config = loadConfig({
  PGLITE_DIR: "memory",
  PORT: String(await freePort()),
  WORKSPACE_PORT: String(await freePort()),
});
const embedded = await startEmbedded(config);
const dir = mkdtempSync(join(tmpdir(), "lighthouse-"));
let failed = false;
try {
  const index = await (await fetch(`${embedded.url}/v1/public/newsroom`)).json();
  const pages: [string, string][] = [
    ["newsroom index", `${embedded.url}/newsroom`],
    ["item", `${embedded.url}/newsroom/${index.items[0].slug}`],
    ["hosted newsroom", `${embedded.url}/newsrooms/northwind`],
  ];
  for (const [name, url] of pages) {
    try {
      const report = await lighthouse(url, join(dir, "report.json"));
      const scores = CATEGORIES.map((category) => {
        const score = report.categories[category]?.score;
        return `${category} ${score === null || score === undefined ? "-" : Math.round(score * 100)}`;
      });
      console.log(`${name} (${new URL(url).pathname}): ${scores.join(", ")}`);
    } catch (error) {
      failed = true;
      console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await embedded.stop();
}
process.exit(failed ? 1 : 0);
