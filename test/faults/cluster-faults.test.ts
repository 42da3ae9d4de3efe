import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { outboxEvents, webhookDeliveries } from "@newsroom/shared/db/schema";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { freePort } from "@newsroom/shared/testing/ports";
import {
  NATS_SERVER,
  natsServer,
  type OwnedServer,
  REDIS_SERVER,
  redisServer,
  requireBinary,
  waitForPort,
  waitForReady,
} from "@newsroom/shared/testing/servers";
import postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { type Cluster, clusterPlan, startCluster } from "../../scripts/cluster.ts";
import { freeClusterPorts, operatorApi } from "../support/cluster.ts";

/**
 * Faults under the six processes: NATS restarted, the webhooks process and the workspace relay
 * killed with SIGKILL, PostgreSQL refusing the public read path, Redis down, and two gateway
 * replicas sharing one rate limit. Each step is bounded in time; NATS and Redis are this file's
 * own servers, never the machine's.
 */
const databaseUrl = requireService("DATABASE_URL");
const nats = requireBinary(NATS_SERVER, "nats-server");
const redis = requireBinary(REDIS_SERVER, "redis-server");
const ready = Boolean(databaseUrl && nats && redis);

const ADMIN_TOKEN = "fault-test-admin-token";
const house = "fault-house";
const ALL_EVENTS = [
  "story.submitted",
  "story.approved",
  "story.rejected",
  "story.published",
  "story.unpublished",
];

describe.skipIf(!ready)("faults under the cluster", () => {
  let database: TestDatabase;
  let cluster: Cluster;
  let natsProcess: OwnedServer;
  let redisProcess: OwnedServer;
  let receiver: ReturnType<typeof Bun.serve>;
  let secondGateway: ReturnType<typeof Bun.spawn> | null = null;
  let env: Record<string, string | undefined>;
  let base = "";
  let workspace = "";
  let key = "";
  /** webhook-id -> how many times the receiver saw it. */
  const seen = new Map<string, number>();
  let verify: Webhook | null = null;

  beforeAll(
    async () => {
      database = await testDatabase({ backend: "postgres" });
      const natsPort = await freePort();
      const redisPort = await freePort();
      natsProcess = natsServer(natsPort);
      redisProcess = redisServer(redisPort);
      natsProcess.start();
      redisProcess.start();
      await waitForPort(natsPort);
      await waitForPort(redisPort);
      receiver = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: async (request) => {
          const body = await request.text();
          const headers: Record<string, string> = {};
          request.headers.forEach((value, name) => {
            headers[name] = value;
          });
          const event = verify!.verify(body, headers) as { id: string };
          expect(headers["webhook-id"]).toBe(event.id);
          seen.set(event.id, (seen.get(event.id) ?? 0) + 1);
          return new Response(null, { status: 204 });
        },
      });
      const ports = await freeClusterPorts();
      env = {
        PATH: process.env.PATH,
        DATABASE_URL: database.url,
        NATS_URL: `nats://127.0.0.1:${natsPort}`,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        ADMIN_TOKEN,
        HOUSE_ORG: house,
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1,1",
        LOG_LEVEL: "error",
      };
      cluster = startCluster(ports, env, { output: "ignore" });
      base = `http://127.0.0.1:${ports.gateway}`;
      workspace = `http://127.0.0.1:${ports.workspace}/internal/v1`;
      await waitForReady(`http://127.0.0.1:${ports.workspace}/health/ready`, START_BUDGET_MS);
      await waitForReady(`${base}/health/ready`, START_BUDGET_MS);

      await admin("POST", "/orgs", { slug: house, name: "Fault house", newsroom_running: true });
      key = (
        await admin("POST", `/orgs/${house}/keys`, {
          environment: "test",
          scopes: ["stories:read", "webhooks:read"],
          lifetime_days: 30,
        })
      ).secret;
      const endpoint = await admin("POST", `/orgs/${house}/webhook_endpoints`, {
        url: `http://127.0.0.1:${receiver.port}/hooks`,
        events: ALL_EVENTS,
      });
      verify = new Webhook(endpoint.secret);
    },
    startBudget(1, 60_000),
  );

  afterAll(async () => {
    secondGateway?.kill("SIGKILL");
    await cluster?.stop();
    receiver?.stop(true);
    await natsProcess?.stop();
    await redisProcess?.stop();
    await database?.close();
  });

  function admin(method: string, path: string, body?: unknown) {
    return operatorApi(workspace, ADMIN_TOKEN)(method, path, body);
  }

  /** Retries a workspace call across a crash of the workspace process. */
  async function adminRetrying(method: string, path: string, body?: unknown) {
    return eventually(() => admin(method, path, body), {
      message: `${method} ${path}`,
      timeoutMs: 30_000,
    });
  }

  async function newStories(prefix: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const story = await adminRetrying("POST", `/orgs/${house}/stories`, {
        type: "insight",
        slug: `${prefix}-${i}`,
        title: `${prefix} ${i}`,
      });
      ids.push(story.id);
    }
    return ids;
  }

  /** Every event in the outbox reached the receiver, and every delivery ended delivered. */
  async function everyEventDelivered(ms: number): Promise<void> {
    await eventually(
      async () => {
        const events = await database.db.select({ id: outboxEvents.id }).from(outboxEvents);
        const deliveries = await database.db
          .select({ status: webhookDeliveries.status })
          .from(webhookDeliveries);
        const allSeen = events.every((event) => seen.has(event.id));
        const allDelivered =
          deliveries.length === events.length && deliveries.every((d) => d.status === "delivered");
        return events.length > 0 && allSeen && allDelivered;
      },
      { message: "every event delivered", timeoutMs: ms },
    );
  }

  test("NATS restarted while events flow: no event lost", async () => {
    const ids = await newStories("nats", 12);
    const transitions = ids.map((id, i) =>
      (async () => {
        await Bun.sleep(i * 50);
        await adminRetrying("POST", `/stories/${id}/transitions`, { action: "submit" });
      })(),
    );
    await Bun.sleep(200);
    await natsProcess.kill();
    await Bun.sleep(500);
    natsProcess.start();
    await Promise.all(transitions);
    // The outbox relay republishes; the reconciler fans out what the server lost.
    await everyEventDelivered(150_000);
    const outbox = await database.db.select({ id: outboxEvents.id }).from(outboxEvents);
    expect(outbox.length).toBeGreaterThanOrEqual(12);
  }, 180_000);

  test("the webhooks process and the workspace relay killed with SIGKILL mid-flow: nothing lost", async () => {
    const ids = await newStories("crash", 20);
    // A submit whose answer was lost in the crash may have committed: 409 then means done.
    const submit = (id: string) =>
      eventually(
        () =>
          admin("POST", `/stories/${id}/transitions`, { action: "submit" }).catch((error) => {
            if (String(error).includes("invalid_transition")) return true;
            throw error;
          }),
        { message: `submit ${id}`, timeoutMs: 30_000 },
      );
    const flow = (async () => {
      for (const id of ids) await submit(id);
    })();
    await Bun.sleep(150);
    for (const name of ["webhooks", "workspace"]) {
      const child = cluster.processes.get(name)!;
      child.kill("SIGKILL");
      await child.exited;
    }
    await Bun.sleep(300);
    cluster.start("workspace");
    cluster.start("webhooks");
    await flow;
    await everyEventDelivered(150_000);
    const submitted = await database.db.select({ id: outboxEvents.id }).from(outboxEvents);
    expect(submitted.length).toBeGreaterThanOrEqual(32);
  }, 200_000);

  test("PostgreSQL refusing connections under public reads: 503 Retry-After 60, then recovery", async () => {
    const name = new URL(database.url!).pathname.slice(1);
    const adminDb = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      expect((await fetch(`${base}/v1/public/newsroom`)).status).toBe(200);
      await adminDb.unsafe(`alter database ${name} allow_connections false`);
      await adminDb.unsafe(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
      );
      const down = await eventually(
        async () => {
          const response = await fetch(`${base}/v1/public/newsroom?type=video`);
          return response.status === 503 ? response : undefined;
        },
        { message: "503 while the database is down", timeoutMs: 20_000 },
      );
      expect(down.headers.get("retry-after")).toBe("60");
      expect(down.headers.get("cache-control")).toBe("no-store");
      expect((await down.json()).error.type).toBe("unavailable");
    } finally {
      await adminDb.unsafe(`alter database ${name} allow_connections true`);
      await adminDb.end();
    }
    await eventually(
      async () => (await fetch(`${base}/v1/public/newsroom?type=event`)).status === 200,
      { message: "recovery without a restart", timeoutMs: 30_000 },
    );
    const stories = () =>
      fetch(`${base}/v1/stories?limit=2`, { headers: { authorization: `Bearer ${key}` } });
    await eventually(async () => (await stories()).status === 200, {
      message: "the client API recovers too",
      timeoutMs: 30_000,
    });
  }, 90_000);

  test("Redis down: rate limiting fails open, never a 500; back up, limits hold again", async () => {
    const call = () => fetch(`${base}/v1/stories`, { headers: { authorization: `Bearer ${key}` } });
    expect((await call()).status).toBe(200);
    await redisProcess.kill();
    for (let i = 0; i < 5; i++) {
      const response = await call();
      expect(response.status).toBe(200);
    }
    redisProcess.start();
    // Back up: the gateways count in Redis again (the restarted server starts empty).
    const client = new Bun.RedisClient(env.REDIS_URL!);
    try {
      await eventually(
        async () => {
          expect((await call()).status).toBe(200);
          const keys = (await client.send("KEYS", ["rl:*"])) as string[];
          return keys.length > 0;
        },
        { message: "counters in the restarted Redis", timeoutMs: 20_000 },
      );
    } finally {
      client.close();
    }
  }, 60_000);

  test("two gateway replicas share one rate limit", async () => {
    const port = await freePort();
    const plan = clusterPlan(cluster.ports);
    secondGateway = Bun.spawn([process.execPath, plan.gateway.entry], {
      cwd: new URL("../../", import.meta.url).pathname,
      env: {
        ...env,
        ...Object.fromEntries(Object.entries(plan.gateway.env).map(([k, v]) => [k, String(v)])),
        PORT: String(port),
      },
      stdout: "ignore",
      stderr: "ignore",
    });
    await waitForReady(`http://127.0.0.1:${port}/health`, START_BUDGET_MS);
    // A key of its own, so the earlier tests' requests do not count.
    const fresh = (
      await admin("POST", `/orgs/${house}/keys`, {
        environment: "test",
        scopes: ["stories:read"],
        lifetime_days: 30,
      })
    ).secret;
    const gateways = [base, `http://127.0.0.1:${port}`];
    const statuses: number[] = [];
    for (let i = 0; i < 301; i++) {
      const response = await fetch(`${gateways[i % 2]}/v1/stories?limit=1`, {
        headers: { authorization: `Bearer ${fresh}` },
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 300).every((s) => s === 200)).toBe(true);
    expect(statuses[300]).toBe(429);
  }, 120_000);
});
