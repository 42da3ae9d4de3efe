import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { DEVELOPER_PORTS_FILE, fileState, spawnStart, startEnv } from "../support/start.ts";

/**
 * What `npm start` tells a new user: where links point, the demo organizations, sites and
 * newsletter origins, the readable inbox page, the test key and whose it is on the first start,
 * how to make one on the next; the web app and the demo people on every start; and one short
 * line per request, not JSON. The starts record their ports in a file of their own, never in
 * the developer's `.data/ports.json`.
 */
const scratch = mkdtempSync(join(tmpdir(), "newsroom-banner-"));
let developerPorts = "";
beforeAll(() => {
  developerPorts = fileState(DEVELOPER_PORTS_FILE);
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  expect(fileState(DEVELOPER_PORTS_FILE)).toBe(developerPorts);
});

/** Starts `npm start` and reads its output until `until` matches; then stops it cleanly. */
async function startAndRead(env: Record<string, string>, until: RegExp, after?: () => unknown) {
  const child = spawnStart(env);
  const timer = setTimeout(() => child.kill("SIGKILL"), START_BUDGET_MS);
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (!until.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    await after?.();
    child.kill("SIGTERM");
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  } finally {
    clearTimeout(timer);
  }
  return { text, code: await child.exited };
}

describe("npm start's banner", () => {
  test(
    "first start: links, demo organizations, inbox page, the key and its organization; second: how to make a key",
    async () => {
      const env = { ...(await startEnv()), PGLITE_DIR: join(scratch, "pg") };
      const port = env.PORT;
      const first = await startAndRead(env, /armk_test_[\w-]{43}\n/, async () => {
        // The ports file is the test's own, written while the start runs.
        const recorded = JSON.parse(readFileSync(env.LOCAL_PORTS_FILE, "utf8"));
        expect(recorded.url).toBe(`http://localhost:${port}`);
        const inbox = await fetch(`http://127.0.0.1:${env.SES_LOCAL_PORT}/`);
        expect(inbox.headers.get("content-type")).toContain("text/html");
        await fetch(`http://127.0.0.1:${port}/health`);
        await Bun.sleep(200);
      });
      expect(first.code).toBe(0);
      const text = first.text;
      expect(text).toContain(`Links          http://localhost:${port}  (from PORT`);
      expect(text).toContain(`http://localhost:${port}/newsrooms/{site}`);
      expect(text).toContain(`Email inbox    http://127.0.0.1:${env.SES_LOCAL_PORT}/  (a page`);
      expect(text).toMatch(/armage +Armage Newsroom: the house newsroom/);
      expect(text).toMatch(
        /northwind +Northwind Cooperative: newsletter sign-up from http:\/\/localhost:5173/,
      );
      expect(text).toContain(`site northwind: http://localhost:${port}/newsrooms/northwind`);
      expect(text).toMatch(/Test API key of northwind \(shown once\):\n +armk_test_[\w-]{43}\n/);
      // A request is one short line, not JSON.
      expect(text).toMatch(/\n\d\d:\d\d:\d\d GET \/health 200 [\d.]+ ms\n/);
      expect(text).not.toContain('{"time"');
      expect(existsSync(env.LOCAL_PORTS_FILE)).toBe(false);

      const second = await startAndRead(env, /key-create.*\n/);
      expect(second.code).toBe(0);
      expect(second.text).not.toContain("armk_test_");
      expect(second.text).toContain(
        "npm run admin -- key-create northwind --environment test --scopes stories:read,feed:read --lifetime-days 90",
      );
      expect(second.text).toContain("northwind      Northwind Cooperative");
      // Both starts: the index page, the web app, the API reference and whom to sign in as.
      for (const { text } of [first, second]) {
        expect(text).toContain(`Home           http://localhost:${port}/`);
        expect(text).toContain(`Web app        http://localhost:${port}/app/`);
        expect(text).toContain(`API reference  http://localhost:${port}/docs`);
        expect(text).toContain(`Demo people    sign in at http://localhost:${port}/app/`);
        expect(text).toMatch(/owner@northwind\.example +owner of northwind\n/);
        expect(text).toMatch(/approver@northwind\.example +approver of northwind\n/);
      }
    },
    startBudget(2),
  );

  test(
    "LOG_FORMAT=json keeps the JSON request lines",
    async () => {
      const env = { ...(await startEnv()), PGLITE_DIR: "memory", LOG_FORMAT: "json" };
      const { text } = await startAndRead(env, /armk_test_[\w-]{43}\n/, async () => {
        await fetch(`http://127.0.0.1:${env.PORT}/health`);
        await Bun.sleep(200);
      });
      const request = text
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line))
        .find((entry) => entry.message === "request");
      expect(request).toMatchObject({ method: "GET", path: "/health", status: 200 });
    },
    startBudget(),
  );
});
