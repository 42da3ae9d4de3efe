import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { waitForReady } from "@newsroom/shared/testing/servers";
import { eq } from "drizzle-orm";
import { type Cluster, startCluster } from "../../scripts/cluster.ts";
import { freeClusterPorts, operatorApi } from "../support/cluster.ts";

/**
 * The webhooks process killed with SIGKILL mid-burst, its receivers slow enough that attempts are
 * in flight at the kill: every delivery arrives, the attempt log holds every call a receiver saw
 * (an attempt is recorded before its request leaves), and the backlog drains within 15 s of the
 * restart (a live worker renews its claims, so a dead one's lapse in seconds).
 */
const databaseUrl = requireService("DATABASE_URL");
const natsUrl = requireService("NATS_URL");
const redisUrl = requireService("REDIS_URL");
const ready = Boolean(databaseUrl && natsUrl && redisUrl);

const ADMIN_TOKEN = "crash-test-admin-token";
const house = "crash-house";
const ENDPOINTS = 3;
const STORIES = 40;
/** How long the receiver takes to answer: attempts are in flight when the process dies. */
const RECEIVER_DELAY_MS = 150;
const DRAIN_WITHIN_MS = 15_000;

describe.skipIf(!ready)("the webhooks process killed mid-burst", () => {
  let database: TestDatabase;
  let cluster: Cluster;
  let receiver: ReturnType<typeof Bun.serve>;
  let internal = "";
  /** `${endpoint path} ${webhook-id}` -> calls the receiver saw. */
  const calls = new Map<string, number>();

  beforeAll(
    async () => {
      database = await testDatabase({ backend: "postgres" });
      receiver = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: async (request) => {
          const id = request.headers.get("webhook-id") ?? "";
          const key = `${new URL(request.url).pathname} ${id}`;
          calls.set(key, (calls.get(key) ?? 0) + 1);
          await request.arrayBuffer();
          await Bun.sleep(RECEIVER_DELAY_MS);
          return new Response(null, { status: 204 });
        },
      });
      const suffix = Math.random().toString(36).slice(2, 8);
      const ports = await freeClusterPorts();
      cluster = startCluster(
        ports,
        {
          PATH: process.env.PATH,
          DATABASE_URL: database.url,
          NATS_URL: natsUrl,
          NATS_STREAM: `CRASH_${suffix}`,
          NATS_SUBJECT_PREFIX: `crash${suffix}.`,
          REDIS_URL: redisUrl,
          RATE_LIMIT_PREFIX: `crash${suffix}:`,
          ADMIN_TOKEN,
          HOUSE_ORG: house,
          WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
          WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1,1",
          LOG_LEVEL: "error",
        },
        { output: "ignore" },
      );
      internal = `http://127.0.0.1:${ports.workspace}/internal/v1`;
      await waitForReady(`http://127.0.0.1:${ports.workspace}/health/ready`, START_BUDGET_MS);
      await waitForReady(`http://127.0.0.1:${ports.gateway}/health/ready`, START_BUDGET_MS);
      await admin("POST", "/orgs", { slug: house, name: "Crash house", newsroom_running: true });
      for (let i = 0; i < ENDPOINTS; i++) {
        await admin("POST", `/orgs/${house}/webhook_endpoints`, {
          url: `http://127.0.0.1:${receiver.port}/hooks/${i}`,
          events: ["story.submitted"],
        });
      }
    },
    startBudget(1, 60_000),
  );

  afterAll(async () => {
    await cluster?.stop();
    receiver?.stop(true);
    await database?.close();
  }, 30_000);

  function admin(method: string, path: string, body?: unknown) {
    return operatorApi(internal, ADMIN_TOKEN)(method, path, body);
  }

  test("every delivery arrives, every call is logged, the backlog drains within 15 s", async () => {
    const ids: string[] = [];
    for (let i = 0; i < STORIES; i++) {
      const story = await admin("POST", `/orgs/${house}/stories`, {
        type: "insight",
        slug: `crash-${i}`,
        title: `Crash ${i}`,
      });
      ids.push(story.id);
    }
    await Promise.all(
      ids.map((id) => admin("POST", `/stories/${id}/transitions`, { action: "submit" })),
    );
    // Kill once attempts are out and unanswered.
    await eventually(() => calls.size >= 5, { message: "attempts under way", timeoutMs: 20_000 });
    const webhooks = cluster.processes.get("webhooks")!;
    webhooks.kill("SIGKILL");
    await webhooks.exited;
    const restarted = performance.now();
    cluster.start("webhooks");

    const expected = STORIES * ENDPOINTS;
    await eventually(
      async () => {
        const rows = await database.db
          .select({ status: webhookDeliveries.status })
          .from(webhookDeliveries);
        return rows.length === expected && rows.every((row) => row.status === "delivered");
      },
      { message: "every delivery delivered", timeoutMs: 60_000, everyMs: 100 },
    );
    const drainedMs = performance.now() - restarted;
    console.log(`backlog drained ${Math.round(drainedMs)} ms after the restart`);

    // The log: for each delivery, at least as many attempts as calls the receiver saw.
    const deliveries = await database.db
      .select({
        id: webhookDeliveries.id,
        eventId: webhookDeliveries.eventId,
        attempts: webhookDeliveries.attempts,
        url: webhookEndpoints.url,
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId));
    const logged = await database.db
      .select({ deliveryId: webhookAttempts.deliveryId })
      .from(webhookAttempts);
    const loggedOf = new Map<string, number>();
    for (const row of logged) {
      loggedOf.set(row.deliveryId, (loggedOf.get(row.deliveryId) ?? 0) + 1);
    }
    const hidden: string[] = [];
    let repeated = 0;
    for (const delivery of deliveries) {
      const seen = calls.get(`${new URL(delivery.url).pathname} ${delivery.eventId}`) ?? 0;
      if (seen > 1) repeated += 1;
      if (seen === 0 || delivery.attempts < seen || (loggedOf.get(delivery.id) ?? 0) < seen) {
        hidden.push(`${delivery.id}: ${seen} calls, attempts ${delivery.attempts}`);
      }
    }
    console.log(`${repeated} deliveries called more than once (the kill caught them in flight)`);
    expect(hidden).toEqual([]);
    expect(drainedMs).toBeLessThan(DRAIN_WITHIN_MS);
  }, 120_000);
});
