import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOCUMENT_PATH } from "../../scripts/openapi.ts";

/**
 * The document as integrators' tools read it: Redocly CLI (`recommended`) and Spectral
 * (`spectral:oas`) find nothing in it, with only the rules gateway/redocly.yaml and
 * gateway/.spectral.yaml turn off (the gateway README says why). A broken copy gets findings
 * from both, so the runs are real.
 */
const ROOT = new URL("../..", import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), "openapi-lint-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Finding {
  rule: string;
  where: string;
}

function run(command: string[]): void {
  const result = Bun.spawnSync(command, {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  // Both exit non-zero on findings; no output file means the tool itself failed.
  if (result.exitCode !== 0 && result.exitCode !== 1) {
    throw new Error(`${command[0]} exited ${result.exitCode}: ${result.stderr.toString()}`);
  }
}

function redocly(document: string): Finding[] {
  const out = join(scratch, "redocly.json");
  rmSync(out, { force: true });
  const command = `node_modules/.bin/redocly lint --config gateway/redocly.yaml --format=json ${document} > ${out}`;
  run(["sh", "-c", command]);
  const report = JSON.parse(readFileSync(out, "utf8")) as {
    problems: { ruleId: string; location: { pointer: string }[] }[];
  };
  return report.problems.map((problem) => ({
    rule: problem.ruleId,
    where: problem.location[0]?.pointer ?? "",
  }));
}

function spectral(document: string): Finding[] {
  const out = join(scratch, "spectral.json");
  rmSync(out, { force: true });
  run([
    "node_modules/.bin/spectral",
    "lint",
    "--ruleset",
    "gateway/.spectral.yaml",
    "--format",
    "json",
    "--output",
    out,
    "--fail-severity",
    "hint",
    document,
  ]);
  const results = JSON.parse(readFileSync(out, "utf8")) as { code: string; path: string[] }[];
  return results.map((result) => ({ rule: result.code, where: result.path.join("/") }));
}

describe("gateway/openapi.json under the integrators' linters", () => {
  test("Redocly CLI finds nothing", () => {
    expect(redocly(DOCUMENT_PATH)).toEqual([]);
  }, 60_000);

  test("Spectral finds nothing", () => {
    expect(spectral(DOCUMENT_PATH)).toEqual([]);
  }, 60_000);

  test("both find a leaked TypeBox option, a missing operationId and an unused component", () => {
    const broken = JSON.parse(readFileSync(DOCUMENT_PATH, "utf8"));
    const newsroom = broken.paths["/v1/public/newsroom"].get;
    delete newsroom.operationId;
    delete newsroom.description;
    broken.paths["/v1/public/contact"].post.requestBody.content[
      "application/json"
    ].schema.properties.fax.honeypot = true;
    broken.components.schemas.Unused = { type: "string" };
    const path = join(scratch, "broken.json");
    writeFileSync(path, JSON.stringify(broken));
    const fromRedocly = redocly(path).map((finding) => finding.rule);
    expect(fromRedocly).toContain("struct");
    expect(fromRedocly).toContain("operation-operationId");
    expect(fromRedocly).toContain("no-unused-components");
    const fromSpectral = spectral(path).map((finding) => finding.rule);
    expect(fromSpectral).toContain("operation-description");
    expect(fromSpectral).toContain("oas3-unused-component");
  }, 60_000);
});
