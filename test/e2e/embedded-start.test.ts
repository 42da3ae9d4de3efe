import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { waitForReady } from "@newsroom/shared/testing/servers";
import { spawnStart, startEnv } from "../support/start.ts";

/**
 * `npm start` refuses, in one line naming the variable and with exit code 1, what it cannot
 * share: a PGlite folder another process holds, or a port already taken, whatever listens there
 * (refused at once, before the services and the database load).
 */
const scratch = mkdtempSync(join(tmpdir(), "newsroom-start-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Waits for a start that must fail: its exit code, its stderr text, and how long it took. */
async function refusal(child: ReturnType<typeof spawnStart>) {
  const started = Date.now();
  const timer = setTimeout(() => child.kill("SIGKILL"), START_BUDGET_MS);
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
  return { code, lines, seconds: (Date.now() - started) / 1000 };
}

const inUse = (variable: string, port: number | string) =>
  `Cannot start: ${variable} ${port} is already in use: stop what listens there, or choose another port with ${variable}=<port>`;

describe("npm start", () => {
  test(
    "a second process on the same PGlite folder stops with one line naming PGLITE_DIR",
    async () => {
      const dir = join(scratch, "pg");
      const env = await startEnv();
      const first = spawnStart({ ...env, PGLITE_DIR: dir });
      try {
        await waitForReady(`http://127.0.0.1:${env.PORT}/health`, START_BUDGET_MS);
        const second = spawnStart({ ...(await startEnv()), PGLITE_DIR: dir });
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
    },
    startBudget(2),
  );

  for (const variable of ["PORT", "WORKSPACE_PORT", "SES_LOCAL_PORT"]) {
    test(
      `a taken ${variable} stops start-up with one line naming it`,
      async () => {
        const env = await startEnv();
        const taken = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
        try {
          env[variable] = String(taken.port);
          const { code, lines } = await refusal(spawnStart({ ...env, PGLITE_DIR: "memory" }));
          expect(code).toBe(1);
          expect(lines).toEqual([inUse(variable, taken.port!)]);
        } finally {
          taken.stop(true);
        }
      },
      startBudget(),
    );
  }

  // The refusal comes before anything loads: seconds, not the half minute a full start takes
  // on a loaded machine.
  test(
    "a plain TCP listener on PORT (not Bun, answering nothing): refused within seconds",
    async () => {
      const listener = createServer(() => {}).listen(0, "127.0.0.1");
      await new Promise((resolve) => listener.once("listening", resolve));
      const port = (listener.address() as { port: number }).port;
      try {
        const env = { ...(await startEnv()), PORT: String(port), PGLITE_DIR: "memory" };
        const { code, lines, seconds } = await refusal(spawnStart(env));
        expect(code).toBe(1);
        expect(lines).toEqual([inUse("PORT", port)]);
        expect(seconds).toBeLessThan(10);
      } finally {
        listener.close();
      }
    },
    startBudget(),
  );

  test(
    "a Bun listener that allows port sharing (SO_REUSEPORT) on PORT: refused, not shared",
    async () => {
      const sharing = Bun.serve({ port: 0, reusePort: true, fetch: () => new Response("other") });
      try {
        const env = { ...(await startEnv()), PORT: String(sharing.port), PGLITE_DIR: "memory" };
        const { code, lines, seconds } = await refusal(spawnStart(env));
        expect(code).toBe(1);
        expect(lines).toEqual([inUse("PORT", sharing.port!)]);
        expect(seconds).toBeLessThan(10);
      } finally {
        sharing.stop(true);
      }
    },
    startBudget(),
  );
});
