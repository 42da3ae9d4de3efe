import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@newsroom/shared/testing/ports";
import { waitForReady } from "@newsroom/shared/testing/servers";

/**
 * `npm start` refuses, in one line naming the variable and with exit code 1, what it cannot
 * share: a PGlite folder another process holds, or a port already taken.
 */
const root = new URL("../../", import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), "newsroom-start-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function ports(): Promise<Record<string, string>> {
  return {
    PORT: String(await freePort()),
    WORKSPACE_PORT: String(await freePort()),
    SES_LOCAL_PORT: String(await freePort()),
  };
}

function start(env: Record<string, string>) {
  return Bun.spawn([process.execPath, "scripts/start.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** Waits (at most a minute) for a start that must fail: its exit code and its stderr text. */
async function refusal(child: ReturnType<typeof start>) {
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const code = await child.exited;
  clearTimeout(timer);
  const stderr = await new Response(child.stderr).text();
  // Log lines (JSON, or `12:04:05 warn ...` in the pretty format) are the service's own logs;
  // anything else is what the operator reads.
  const lines = stderr
    .split("\n")
    .filter(
      (line) => line.trim() !== "" && !line.startsWith("{") && !/^\d\d:\d\d:\d\d /.test(line),
    );
  return { code, lines };
}

describe("npm start", () => {
  test("a second process on the same PGlite folder stops with one line naming PGLITE_DIR", async () => {
    const dir = join(scratch, "pg");
    const env = await ports();
    const first = start({ ...env, PGLITE_DIR: dir });
    try {
      await waitForReady(`http://127.0.0.1:${env.PORT}/health`, 60_000);
      const second = start({ ...(await ports()), PGLITE_DIR: dir });
      const { code, lines } = await refusal(second);
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("PGLITE_DIR");
      expect(lines[0]).toContain(`in use by another process (pid ${first.pid})`);
      // The first is untouched.
      expect((await fetch(`http://127.0.0.1:${env.PORT}/health`)).status).toBe(200);
    } finally {
      first.kill("SIGTERM");
      expect(await first.exited).toBe(0);
    }
    // A clean exit leaves no lock: the folder opens again.
    expect(existsSync(`${dir}.lock`)).toBe(false);
  }, 150_000);

  for (const variable of ["PORT", "WORKSPACE_PORT", "SES_LOCAL_PORT"]) {
    test(`a taken ${variable} stops start-up with one line naming it`, async () => {
      const env = await ports();
      const taken = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
      try {
        env[variable] = String(taken.port);
        const { code, lines } = await refusal(start({ ...env, PGLITE_DIR: "memory" }));
        expect(code).toBe(1);
        expect(lines).toEqual([`Cannot start: ${variable} ${taken.port} is already in use`]);
      } finally {
        taken.stop(true);
      }
    }, 90_000);
  }
});
