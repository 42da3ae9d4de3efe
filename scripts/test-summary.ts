/**
 * The end of `npm test`: what ran against which real server, what was skipped and why, and one
 * last line `N passed, N failed, N skipped`. Read from bun's JUnit report.
 */
import { existsSync, readFileSync } from "node:fs";
import { CHROMIUM } from "@newsroom/shared/testing/browser";
import { NATS_SERVER, REDIS_SERVER } from "@newsroom/shared/testing/servers";

export interface TestCase {
  file: string;
  name: string;
  outcome: "passed" | "failed" | "skipped";
}

const TESTCASE =
  /<testcase name="([^"]*)" classname="([^"]*)"[^>]*? file="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g;

function unescapeXml(text: string): string {
  return text
    .replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

/** Every test case of a JUnit report written by `bun test --reporter=junit`. */
export function parseJunit(xml: string): TestCase[] {
  return [...xml.matchAll(TESTCASE)].map(([, name, classname, file, inner]) => {
    const body = inner ?? "";
    const outcome = /<(failure|error)\b/.test(body)
      ? "failed"
      : /<skipped\b/.test(body)
        ? "skipped"
        : "passed";
    const title = [classname, name]
      .filter((part): part is string => Boolean(part))
      .map(unescapeXml)
      .join(" > ");
    return { file: file!, name: title, outcome };
  });
}

type Env = Record<string, string | undefined>;

/** Where a URL points, without its user or password. */
function where(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "set";
  }
}

export interface Machine {
  chromium: boolean;
  natsServer: boolean;
  redisServer: boolean;
}

export function thisMachine(): Machine {
  return {
    chromium: existsSync(CHROMIUM),
    natsServer: NATS_SERVER !== null,
    redisServer: REDIS_SERVER !== null,
  };
}

/** The backends this run used, one line each. */
export function backendLines(env: Env, machine: Machine): string[] {
  const url = (name: string, real: string, otherwise: string) =>
    env[name] ? `${real} at ${where(env[name]!)} (${name})` : `${otherwise} (${name} not set)`;
  return [
    `Database      ${url("DATABASE_URL", "PostgreSQL", "PGlite in memory")}`,
    `Events        ${url("NATS_URL", "NATS JetStream", "the in-process bus")}`,
    `Rate limits   ${url("REDIS_URL", "Redis", "in memory")}`,
    `Browser       ${machine.chromium ? `Chromium (${CHROMIUM})` : `none (${CHROMIUM} missing)`}`,
    `Own servers   nats-server ${machine.natsServer ? "found" : "missing"}, redis-server ${machine.redisServer ? "found" : "missing"} (fault tests start their own)`,
  ];
}

/**
 * Why a file's tests were skipped: the conditions its source names that this run lacks. Tests
 * skip themselves with `describeInBrowser`, `requireService` or `skipIf` on these.
 */
export function skipReasons(source: string, env: Env, machine: Machine): string[] {
  const reasons: string[] = [];
  if (source.includes("describeInBrowser") && !machine.chromium) {
    reasons.push(`Chromium missing (apt-get install chromium)`);
  }
  for (const name of ["DATABASE_URL", "NATS_URL", "REDIS_URL"]) {
    if (source.includes(name) && !env[name]) reasons.push(`${name} not set`);
  }
  if (/natsServerBinary|NATS_SERVER/.test(source) && !machine.natsServer) {
    reasons.push("nats-server not installed");
  }
  if (/REDIS_SERVER/.test(source) && !machine.redisServer) {
    reasons.push("redis-server not installed");
  }
  return reasons.length > 0 ? reasons : ["skipped by the test itself (test.skip)"];
}

export function summary(
  cases: TestCase[],
  env: Env,
  machine: Machine,
  exitCode: number,
  readSource: (file: string) => string = (file) => readFileSync(file, "utf8"),
): string {
  const count = (outcome: TestCase["outcome"]) => cases.filter((c) => c.outcome === outcome);
  const failed = count("failed");
  const skipped = count("skipped");
  const lines = ["", "Summary", ...backendLines(env, machine).map((line) => `  ${line}`)];
  if (skipped.length > 0) {
    lines.push(`  Skipped ${skipped.length}:`);
    const byFile = Map.groupBy(skipped, (c) => c.file);
    for (const [file, list] of byFile) {
      const reasons = skipReasons(readSource(file), env, machine).join("; ");
      lines.push(`    ${file} (${list.length}): ${reasons}`);
    }
  }
  if (failed.length > 0) {
    lines.push(`  Failed ${failed.length}:`);
    for (const c of failed) lines.push(`    ${c.file}: ${c.name}`);
  }
  if (exitCode !== 0 && failed.length === 0) {
    lines.push(`  bun test exited with code ${exitCode}: an error outside any test, shown above`);
  }
  lines.push(
    "",
    `${count("passed").length} passed, ${failed.length} failed, ${skipped.length} skipped`,
  );
  return lines.join("\n");
}
