/**
 * The test command: type-check the whole repo, lint and format-check it, then run every test.
 * Extra arguments go to `bun test` (a file name or `-t pattern`). Passing tests are not listed;
 * failures are, in full, a line of progress comes every so often (see test-progress.ts), and the
 * run ends with a summary (see test-summary.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DotCounter } from "./test-progress.ts";
import { parseJunit, summary, thisMachine } from "./test-summary.ts";

const extra = process.argv.slice(2);

/** A step whose output matters only when it fails. */
function check(label: string, command: string[]): void {
  const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode === 0) {
    console.log(`ok  ${label}`);
    return;
  }
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  console.error(`\n${label} failed (exit ${result.exitCode})`);
  process.exit(result.exitCode ?? 1);
}

if (extra.length === 0) {
  check("type-check (tsc --noEmit)", ["node_modules/.bin/tsc", "--noEmit"]);
  check("lint and format (biome check)", ["node_modules/.bin/biome", "check", "."]);
  check("typed client from the OpenAPI document (openapi-typescript)", [
    "node_modules/.bin/openapi-typescript",
    "gateway/openapi.json",
    "-o",
    "clients/typescript/api.d.ts",
  ]);
  check("the typed client type-checks", ["node_modules/.bin/tsc", "-p", "clients/typescript"]);
}

/** How often a line of progress is printed while tests finish. */
const PROGRESS_EVERY_MS = 15_000;

console.log(
  "\n> tests (bun test): only failures are shown, and progress every 15 s (the whole suite takes about 15 minutes on 2 cores)",
);
const reports = mkdtempSync(join(tmpdir(), "newsroom-test-"));
const report = join(reports, "junit.xml");
const started = Date.now();
const run = Bun.spawn(
  [
    process.execPath,
    "test",
    "--timeout",
    "60000",
    "--only-failures",
    "--dots",
    "--reporter=junit",
    `--reporter-outfile=${report}`,
    ...extra,
  ],
  { stdout: "inherit", stderr: "pipe" },
);
const counter = new DotCounter();
let shownTests = 0;
const progress = setInterval(() => {
  if (counter.tests === shownTests) return;
  shownTests = counter.tests;
  console.log(counter.progress(Date.now() - started));
}, PROGRESS_EVERY_MS);
const decoder = new TextDecoder();
const reader = run.stderr.getReader();
while (true) {
  const { value, done } = await reader.read();
  if (done) break;
  process.stderr.write(counter.feed(decoder.decode(value, { stream: true })));
}
await run.exited;
clearInterval(progress);
let xml = "";
try {
  xml = readFileSync(report, "utf8");
} catch {
  // No report: bun stopped before writing one; its exit code says so below.
}
rmSync(reports, { recursive: true, force: true });
console.log(summary(parseJunit(xml), process.env, thisMachine(), run.exitCode ?? 1));
process.exit(run.exitCode ?? 1);
