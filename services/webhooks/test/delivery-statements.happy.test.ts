import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { secretsKey } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { schema } from "@newsroom/shared/db/index";
import { webhookAttempts, webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { requireService, withDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type TcpProxy, tcpProxy } from "@newsroom/shared/testing/tcp-proxy";
import { startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { and, eq, inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { claimedBodies } from "../src/delivery/payload.ts";
import {
  claimAndOpenAttempts,
  recordDeliveredBatch,
  releaseLeases,
} from "../src/delivery/store.ts";
import { DeliveryWorker } from "../src/delivery/worker.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

const databaseUrl = requireService("DATABASE_URL");

const ENDPOINTS = 10;
const limits = { workerId: newId(), leaseMs: 60_000, tenureMs: 60_000, perEndpoint: 4 };

/**
 * The statements and round trips of a batch of deliveries on PostgreSQL, counted as the client
 * sends them (its debug log, and a proxy that counts its sends): the claim opens the attempts
 * and reads what they are sent with in the same statement, the 2xx answers are one statement, and
 * every one of them is prepared (no round trip to describe its parameters first), whatever the
 * batch's size.
 */
describe.skipIf(!databaseUrl)("a delivery batch's statements on PostgreSQL", () => {
  let fx: Fixture;
  let proxy: TcpProxy;
  let client: postgres.Sql;
  let db: Db;
  let statements: string[] = [];
  const receiver = startReceiver();
  const endpointIds: string[] = [];

  beforeAll(async () => {
    fx = await webhooksFixture();
    const real = new URL(fx.database.url!);
    proxy = tcpProxy({ hostname: real.hostname, port: Number(real.port || 5432) });
    const proxied = new URL(fx.database.url!);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    client = postgres(withDatabase(proxied.toString(), real.pathname.slice(1)), {
      // One connection, so that its statements are prepared by the first batch, as a warm pool's.
      max: 1,
      onnotice: () => {},
      debug: (_connection, query) => statements.push(query.trim().replace(/\s+/g, " ")),
    });
    db = drizzle(client, { schema }) as unknown as Db;
    for (let i = 0; i < ENDPOINTS; i++) {
      endpointIds.push((await fx.endpoint(receiver.url(`/hook-${i}`), ["story.submitted"])).id);
    }
  });

  afterAll(async () => {
    await client.end();
    proxy.cut();
    receiver.stop();
    await fx.close();
  });

  /** `events` submitted stories, a due delivery of each to every endpoint. */
  async function dueDeliveries(events: number): Promise<string[]> {
    const ids: string[] = [];
    for (let n = 0; n < events; n++) {
      const { storyId, eventId } = await fx.submitted();
      const rows = endpointIds.map((endpointId) => ({
        id: newId(),
        organizationId: fx.orgId,
        endpointId,
        eventId,
        eventType: "story.submitted" as const,
        storyId,
        eventCreatedAt: new Date(),
        nextAttemptAt: new Date(Date.now() - 1_000),
      }));
      await fx.db.insert(webhookDeliveries).values(rows);
      ids.push(...rows.map((row) => row.id));
    }
    return ids;
  }

  /** One batch as the worker goes through it: claim, open and read, record the answers. */
  async function batch() {
    const claimed = await claimAndOpenAttempts(db, 64, limits);
    const claimSends = proxy.clientSends;
    const claimStatements = statements.length;
    const endpoints = new Set([...claimed.context.values()].map((read) => read.endpoint.id));
    const bodies = await claimedBodies(db, claimed.rows, claimed.context);
    const readSends = proxy.clientSends;
    const readStatements = statements.length;
    await recordDeliveredBatch(
      db,
      claimed.rows.map((delivery) => ({
        delivery,
        statusCode: 200,
        at: new Date(),
        durationMs: 1,
        responseBody: "ok",
      })),
    );
    return {
      claimed,
      endpoints,
      bodies,
      claimSends,
      claimStatements,
      readSends,
      readStatements,
    };
  }

  test("claim, open and read, then the answers: two statements in two round trips", async () => {
    // Warm-up: the connection prepares each statement once.
    await dueDeliveries(1);
    await batch();

    const ids = await dueDeliveries(2);
    statements = [];
    const sendsBefore = proxy.clientSends;
    const run = await batch();
    const sends = proxy.clientSends - sendsBefore;

    expect(run.claimed.rows.map((row) => row.id).sort()).toEqual([...ids].sort());
    // Every claimed delivery's attempt was opened by the claim itself.
    expect([...run.claimed.opened].sort()).toEqual([...ids].sort());
    expect(run.claimed.rows.every((row) => row.attempts === 1)).toBe(true);
    expect(run.endpoints.size).toBe(ENDPOINTS);
    expect(run.bodies.size).toBe(2);

    // One statement, one round trip, for the claim, the opening and the reads (endpoints,
    // stories, the events' places): the bodies need nothing more.
    expect(run.claimStatements).toBe(1);
    expect(run.claimSends - sendsBefore).toBe(1);
    expect(run.readStatements).toBe(run.claimStatements);
    expect(run.readSends).toBe(run.claimSends);
    // The bodies are those a read of the stories gives.
    for (const row of run.claimed.rows) {
      const body = JSON.parse(run.bodies.get(row.eventId)!);
      expect(body.data.story.id).toBe(row.storyId);
      expect(body.data.story.title).toBe("A story");
    }
    // One statement for every answer of the batch.
    expect(statements).toHaveLength(2);
    expect(sends).toBe(2);

    const attempts = await fx.db
      .select()
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, ids));
    expect(attempts).toHaveLength(ids.length);
    expect(attempts.every((attempt) => !attempt.inFlight && attempt.statusCode === 200)).toBe(true);
    const delivered = await fx.db
      .select()
      .from(webhookDeliveries)
      .where(and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.status, "delivered")));
    expect(delivered).toHaveLength(ids.length);
    // As a worker stopping does: its endpoints are the next worker's at once.
    await releaseLeases(fx.db, limits.workerId);
  });

  test("the worker opens no attempt of an endpoint without a rate in a statement of its own", async () => {
    const ids = await dueDeliveries(4);
    statements = [];
    const worker = new DeliveryWorker({
      db,
      secretsKey: secretsKey(fx.config),
      schedule: [0.05],
      pollIntervalMs: 20,
      allowInsecureTargets: true,
    });
    worker.start();
    try {
      await eventually(
        async () =>
          (
            await fx.db
              .select({ id: webhookDeliveries.id })
              .from(webhookDeliveries)
              .where(
                and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.status, "delivered")),
              )
          ).length === ids.length,
        { message: "every delivery recorded as delivered" },
      );
    } finally {
      await worker.stop();
    }
    // Each sent once (the batches of the first test were recorded without a request).
    expect(receiver.hits.filter((hit) => hit.path.startsWith("/hook-"))).toHaveLength(ids.length);
    // Attempts are written only by the claims.
    const writesAttempts = statements.filter((statement) =>
      /insert into webhook_attempts/i.test(statement),
    );
    expect(writesAttempts.length).toBeGreaterThan(0);
    expect(
      writesAttempts.every((statement) => statement.startsWith("with recursive endpoints")),
    ).toBe(true);
  });
});
