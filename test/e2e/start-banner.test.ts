import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@newsroom/shared/testing/ports";

/**
 * What `npm start` tells a new user: where links point, the demo organizations, sites and
 * newsletter origins, the readable inbox page, the test key and whose it is on the first start,
 * how to make one on the next; and one short line per request, not JSON.
 */
const root = new URL("../../", import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), "newsroom-banner-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Starts `npm start` and reads its output until `until` matches; then stops it cleanly. */
async function startAndRead(env: Record<string, string>, until: RegExp, after?: () => unknown) {
  const child = Bun.spawn([process.execPath, "scripts/start.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
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
  test("first start: links, demo organizations, inbox page, the key and its organization; second: how to make a key", async () => {
    const env = {
      PORT: String(await freePort()),
      WORKSPACE_PORT: String(await freePort()),
      SES_LOCAL_PORT: String(await freePort()),
      PGLITE_DIR: join(scratch, "pg"),
    };
    const port = env.PORT;
    const first = await startAndRead(env, /armk_test_[\w-]{43}\n/, async () => {
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

    const second = await startAndRead(env, /key-create.*\n/);
    expect(second.code).toBe(0);
    expect(second.text).not.toContain("armk_test_");
    expect(second.text).toContain(
      "npm run admin -- key-create northwind --environment test --scopes stories:read,feed:read --lifetime-days 90",
    );
    expect(second.text).toContain("northwind      Northwind Cooperative");
  }, 150_000);

  test("LOG_FORMAT=json keeps the JSON request lines", async () => {
    const env = {
      PORT: String(await freePort()),
      WORKSPACE_PORT: String(await freePort()),
      SES_LOCAL_PORT: String(await freePort()),
      PGLITE_DIR: "memory",
      LOG_FORMAT: "json",
    };
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
  }, 90_000);
});
