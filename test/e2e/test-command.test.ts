import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DotCounter } from "../../scripts/test-progress.ts";
import { parseJunit, skipReasons, summary } from "../../scripts/test-summary.ts";

/**
 * `npm test` lists failures only and ends with one summary: the servers used, what was skipped
 * and why, and `N passed, N failed, N skipped` as its last line. While it runs, a line of
 * progress (tests done, failures, time) comes every 15 s, counted from bun's dots.
 */
const root = new URL("../../", import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), "newsroom-test-command-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const machine = { chromium: false, natsServer: true, redisServer: true };

describe("the test summary", () => {
  const xml = `<testsuites>
  <testsuite name="a.test.ts" file="a.test.ts">
    <testcase name="works" classname="part" time="0" file="a.test.ts" line="3" assertions="1" />
    <testcase name="breaks &amp; says so" classname="part" time="0" file="a.test.ts" line="4" assertions="1">
      <failure type="AssertionError" />
    </testcase>
    <testcase name="in a browser" classname="" time="0" file="b.test.ts" line="5" assertions="0">
      <skipped />
    </testcase>
  </testsuite>
</testsuites>`;

  test("reads passes, failures and skips from the JUnit report", () => {
    expect(parseJunit(xml)).toEqual([
      { file: "a.test.ts", name: "part > works", outcome: "passed" },
      { file: "a.test.ts", name: "part > breaks & says so", outcome: "failed" },
      { file: "b.test.ts", name: "in a browser", outcome: "skipped" },
    ]);
  });

  test("names why a file skipped: the condition its source uses that this run lacks", () => {
    const env = { DATABASE_URL: "postgres://u:p@db:5432/x" };
    expect(skipReasons('describeInBrowser("x", () => {})', env, machine)).toEqual([
      "Chromium missing (apt-get install chromium)",
    ]);
    expect(skipReasons('requireService("NATS_URL"); DATABASE_URL', env, machine)).toEqual([
      "NATS_URL not set",
    ]);
    expect(skipReasons('test.skip("later", () => {})', env, machine)).toEqual([
      "skipped by the test itself (test.skip)",
    ]);
  });

  test("ends with one count line; servers without their passwords", () => {
    const text = summary(
      parseJunit(xml),
      { DATABASE_URL: "postgres://u:s3cret@db:5432/x" },
      machine,
      1,
      () => "describeInBrowser",
    );
    const lines = text.split("\n");
    expect(lines.at(-1)).toBe("1 passed, 1 failed, 1 skipped");
    expect(text).toContain("PostgreSQL at db:5432/x (DATABASE_URL)");
    expect(text).toContain("b.test.ts (1): Chromium missing");
    expect(text).toContain("a.test.ts: part > breaks & says so");
    expect(text).not.toContain("s3cret");
  });
});

describe("the progress of a run", () => {
  test("counts bun's dots, drops them, and passes failures and logs through whole", () => {
    const counter = new DotCounter();
    const shown = [
      counter.feed("bun test v1.4.5\n.."),
      counter.feed(".\n\na.test.ts:\nerror: expect(received)\n...rest of a message\n"),
      counter.feed("(fail) a2 [0.10ms]\n.."),
      counter.feed("12:00:01 warn a log line\n."),
    ].join("");
    expect(counter.tests).toBe(6);
    expect(counter.failed).toBe(1);
    expect(shown).toBe(
      "bun test v1.4.5\n\na.test.ts:\nerror: expect(received)\n...rest of a message\n(fail) a2 [0.10ms]\n12:00:01 warn a log line\n",
    );
    expect(counter.progress(200_500)).toBe("  6 tests done, 1 failed (3 min 20 s)");
  });
});

describe("npm test", () => {
  test("a failing test: its failure in full, passing ones not listed, exit code 1", () => {
    const file = join(scratch, "sample.test.ts");
    writeFileSync(
      file,
      `import { expect, test } from "bun:test";
test("adds up", () => expect(1 + 1).toBe(2));
test("is wrong on purpose", () => expect(1 + 1).toBe(3));
test.skip("not yet", () => {});
`,
    );
    const run = Bun.spawnSync([process.execPath, "scripts/test.ts", file], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = run.stdout.toString() + run.stderr.toString();
    expect(run.exitCode).toBe(1);
    expect(output).toContain("is wrong on purpose");
    expect(output).not.toContain("(pass) adds up");
    expect(run.stdout.toString().trimEnd().split("\n").at(-1)).toBe(
      "1 passed, 1 failed, 1 skipped",
    );
    expect(output).toContain("sample.test.ts (1): skipped by the test itself (test.skip)");
    expect(output).not.toMatch(/^\.+$/m);
  }, 60_000);
});
