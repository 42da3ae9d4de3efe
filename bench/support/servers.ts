/**
 * The servers under test, each in processes of their own, stopped at cleanup: the embedded
 * service as `npm start` runs it (a fresh PGlite folder), and the six processes of the
 * distributed mode as `npm run start:cluster` runs them (their own PostgreSQL database, stream
 * and rate-limit prefix, dropped or left unused at the end).
 */
import type { testDatabase as TestDatabase } from "@newsroom/shared/testing/database";
import { freePort } from "@newsroom/shared/testing/ports";
import type { startCluster as StartCluster } from "../../scripts/cluster.ts";
import { freeClusterPorts } from "../../test/support/cluster.ts";
import { onCleanup, SERVER_ROOT, scratchPath, spawnProcess, waitFor200 } from "./external.ts";
import { ADMIN_TOKEN } from "./workspace.ts";

/** Every request comes from 127.0.0.1: public reads are measured, not their limit. */
const UNLIMITED_PUBLIC_READS = "1000000000";

export interface EmbeddedServer {
  url: string;
  workspaceApi: string;
  pid: number;
  /** The demo's test key, printed at first start. */
  testKey: string;
  /** Milliseconds from spawn to the first 200 on /health and on the newsroom index. */
  healthMs: number;
  newsroomMs: number;
}

/** `scripts/start.ts` on an empty PGlite folder, demo data seeded at its first start. */
export async function startEmbeddedServer(
  extraEnv: Record<string, string> = {},
): Promise<EmbeddedServer> {
  const port = await freePort();
  const workspacePort = await freePort();
  const started = performance.now();
  const child = spawnProcess(
    [process.execPath, `${SERVER_ROOT}scripts/start.ts`],
    {
      PATH: process.env.PATH,
      PORT: String(port),
      WORKSPACE_PORT: String(workspacePort),
      SES_LOCAL_PORT: String(await freePort()),
      PGLITE_DIR: scratchPath(`pg-${port}`),
      ADMIN_TOKEN,
      PUBLIC_RATE_LIMIT_PER_MINUTE: UNLIMITED_PUBLIC_READS,
      LOG_LEVEL: "error",
      ...extraEnv,
    },
    "pipe",
  );
  let banner = "";
  void (async () => {
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      banner += new TextDecoder().decode(value);
    }
  })();
  const url = `http://127.0.0.1:${port}`;
  await waitFor200(`${url}/health`, 120_000, 20);
  const healthMs = performance.now() - started;
  await waitFor200(`${url}/v1/public/newsroom`, 120_000, 20);
  const newsroomMs = performance.now() - started;
  const testKey = /armk_(?:live|test)_[A-Za-z0-9_-]+/.exec(banner)?.[0] ?? "";
  return {
    url,
    workspaceApi: `http://127.0.0.1:${workspacePort}/internal/v1`,
    pid: child.pid,
    testKey,
    healthMs,
    newsroomMs,
  };
}

export interface DistributedServer {
  gateway: string;
  clientApi: string;
  publicRead: string;
  workspaceApi: string;
  pids: Record<string, number>;
  /** The environment the processes share (for a helper process of the bench). */
  env: Record<string, string | undefined>;
}

/** The six processes on DATABASE_URL (a database of their own), NATS_URL and REDIS_URL. */
/**
 * The OTEL_* variables the bench was run with, handed to the processes it starts: a run with
 * OTEL_EXPORTER_OTLP_ENDPOINT set measures them with tracing on.
 */
export function tracingEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[0].startsWith("OTEL_") && entry[1] !== undefined,
    ),
  );
}

export async function startDistributed(
  extraEnv: Record<string, string> = {},
): Promise<DistributedServer> {
  for (const name of ["DATABASE_URL", "NATS_URL", "REDIS_URL"]) {
    if (!process.env[name]) throw new Error(`${name} is required for the distributed benches`);
  }
  const suffix = Math.random().toString(36).slice(2, 8);
  // The measured checkout's own migrations.
  const { testDatabase } = (await import(`${SERVER_ROOT}shared/src/testing/database.ts`)) as {
    testDatabase: typeof TestDatabase;
  };
  const database = await testDatabase({ backend: "postgres" });
  onCleanup(() => database.close());
  const ports = await freeClusterPorts();
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: database.url,
    NATS_URL: process.env.NATS_URL,
    NATS_STREAM: `BENCH_${suffix.toUpperCase()}`,
    NATS_SUBJECT_PREFIX: `bench${suffix}.`,
    REDIS_URL: process.env.REDIS_URL,
    RATE_LIMIT_PREFIX: `bench:${suffix}:`,
    PUBLIC_RATE_LIMIT_PER_MINUTE: UNLIMITED_PUBLIC_READS,
    ADMIN_TOKEN,
    HOUSE_ORG: "bench-house",
    // Forms are not measured: their mail goes nowhere.
    SES_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
    FORMS_FROM_EMAIL: "newsroom@example.com",
    FORMS_TEAM_EMAIL: "team@example.com",
    LOG_LEVEL: "error",
    ...tracingEnv(),
    ...extraEnv,
  };
  // The measured checkout's own cluster layout.
  const { startCluster } = (await import(`${SERVER_ROOT}scripts/cluster.ts`)) as {
    startCluster: typeof StartCluster;
  };
  const cluster = startCluster(ports, env, { output: "ignore" });
  onCleanup(() => cluster.stop());
  const gateway = `http://127.0.0.1:${ports.gateway}`;
  await waitFor200(`http://127.0.0.1:${ports.workspace}/health/ready`, 90_000, 200);
  await waitFor200(`${gateway}/health/ready`, 90_000, 200);
  const pids: Record<string, number> = {};
  for (const [name, child] of cluster.processes) pids[name] = child.pid;
  return {
    gateway,
    clientApi: `http://127.0.0.1:${ports.clientApi}`,
    publicRead: `http://127.0.0.1:${ports.publicRead}`,
    workspaceApi: `http://127.0.0.1:${ports.workspace}/internal/v1`,
    pids,
    env,
  };
}
