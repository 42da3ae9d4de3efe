import { describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { START_BUDGET_MS } from "@newsroom/shared/testing/budget";
import { requireService } from "@newsroom/shared/testing/database";
import { freePort, freePortsAt } from "@newsroom/shared/testing/ports";
import { PORT_OFFSETS } from "../../scripts/cluster.ts";

/**
 * `npm run start:cluster` checks PostgreSQL, NATS and Redis before starting anything: one line
 * for each that does not answer, exit code 1, within seconds.
 */
const root = new URL("../../", import.meta.url).pathname;
const databaseUrl = requireService("DATABASE_URL");
const natsUrl = requireService("NATS_URL");
const redisUrl = requireService("REDIS_URL");
const ready = Boolean(databaseUrl && natsUrl && redisUrl);

async function startCluster(env: Record<string, string>) {
  const started = Date.now();
  const child = Bun.spawn([process.execPath, "scripts/cluster.ts"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(await freePortsAt(PORT_OFFSETS)),
      WORKSPACE_PORT: String(await freePort()),
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), START_BUDGET_MS);
  const code = await child.exited;
  clearTimeout(timer);
  const stderr = await new Response(child.stderr).text();
  const stdout = await new Response(child.stdout).text();
  return {
    code,
    seconds: (Date.now() - started) / 1000,
    lines: stderr.split("\n").filter((line) => line.trim() !== ""),
    stdout,
  };
}

describe.skipIf(!ready)("npm run start:cluster without its backends", () => {
  const real = () => ({ DATABASE_URL: databaseUrl!, NATS_URL: natsUrl!, REDIS_URL: redisUrl! });

  for (const [variable, scheme, what] of [
    ["DATABASE_URL", "postgres://postgres:s3cret@127.0.0.1", "the database"],
    ["NATS_URL", "nats://127.0.0.1", "NATS"],
    ["REDIS_URL", "redis://default:s3cret@127.0.0.1", "Redis"],
  ] as const) {
    test(`${variable} on a closed port: one line naming ${what}, exit 1, within seconds`, async () => {
      const port = await freePort();
      const url = variable === "DATABASE_URL" ? `${scheme}:${port}/newsroom` : `${scheme}:${port}`;
      const { code, seconds, lines, stdout } = await startCluster({ ...real(), [variable]: url });
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(what);
      expect(lines[0]).toContain(variable);
      expect(lines[0]).toContain(`127.0.0.1:${port}`);
      expect(lines[0]).not.toContain("s3cret");
      expect(stdout).toBe("");
      expect(seconds).toBeLessThan(10);
    }, 40_000);
  }

  test("all three missing: one line each", async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    const { code, lines } = await startCluster({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${ports[0]}/newsroom`,
      NATS_URL: `nats://127.0.0.1:${ports[1]}`,
      REDIS_URL: `redis://127.0.0.1:${ports[2]}`,
    });
    expect(code).toBe(1);
    expect(lines).toHaveLength(3);
  }, 40_000);

  test("a port that accepts but never answers counts as not answering", async () => {
    const silent = createServer(() => {}).listen(0, "127.0.0.1");
    await new Promise((resolve) => silent.once("listening", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const { code, lines, seconds } = await startCluster({
        ...real(),
        REDIS_URL: `redis://127.0.0.1:${port}`,
      });
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("Redis");
      expect(seconds).toBeLessThan(10);
    } finally {
      silent.close();
    }
  }, 40_000);
});
