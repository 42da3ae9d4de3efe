import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, openDatabase } from "@newsroom/shared/db/index";
import { webhookAttempts, webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import type { ServiceHandle } from "@newsroom/shared/service";
import { requireService } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import { createWebhooksService } from "../src/app.ts";
import {
  type DeliveryRow,
  openAttempts,
  recordDeliveredBatch,
  recordFailedAttempt,
} from "../src/delivery/store.ts";
import { CLAIM_LEASE_MS } from "../src/delivery/worker.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";
import { holdTransaction } from "./support/held-transaction.ts";

const databaseUrl = requireService("DATABASE_URL");

/** How long the recordings may wait for a lock here: shorter than the fan-out holds its own. */
const LOCK_TIMEOUT_MS = 1_000;

/**
 * A fan-out inserting an endpoint's deliveries holds its transaction open (a batch of events,
 * on a loaded database, for seconds), and its inserts' foreign key keeps a "key share" lock on
 * the endpoint's row until it commits. Recording the endpoint's answers meanwhile must not wait
 * for it: a recording that waited past the lock timeout failed, its answers were lost, and the
 * deliveries were sent again once their claims lapsed.
 */
describe.skipIf(!databaseUrl)("recording answers while a fan-out is inserting deliveries", () => {
  let fx: Fixture;
  /** The recorder's connection, with a short lock timeout. */
  let recorder: Database;
  /** The fan-out's connection, whose transaction stays open during the test. */
  let fanOut: postgres.Sql;
  let endpointId: string;

  beforeAll(async () => {
    fx = await webhooksFixture();
    recorder = await openDatabase({
      url: fx.database.url!,
      max: 1,
      timeouts: {
        statementMs: 5_000,
        lockMs: LOCK_TIMEOUT_MS,
        idleInTransactionMs: 0,
        connectMs: 5_000,
      },
    });
    fanOut = postgres(fx.database.url!, { max: 1, onnotice: () => {} });
    endpointId = (await fx.endpoint("http://127.0.0.1:9/hook")).id;
  });

  afterAll(async () => {
    await fanOut.end();
    await recorder.close();
    await fx.close();
  });

  async function claimedDelivery(): Promise<DeliveryRow> {
    const row = await fx.pendingDelivery(endpointId, {
      lockedUntil: new Date(Date.now() + 60_000),
    });
    await openAttempts(fx.db, [row]);
    const [opened] = await fx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, row.id));
    return opened!;
  }

  /** Runs `record` while another transaction has inserted a delivery of the endpoint, uncommitted. */
  async function duringFanOut<T>(record: () => Promise<T>): Promise<T> {
    const fanOutInserting = await holdTransaction(
      fanOut,
      (tx) => tx`insert into webhook_deliveries
        (id, organization_id, endpoint_id, event_id, event_type, event_created_at, next_attempt_at)
        values (${newId()}, ${fx.orgId}, ${endpointId}, ${newId()}, 'story.published', now(),
          now() + interval '1 hour')`,
    );
    try {
      return await record();
    } finally {
      fanOutInserting.release();
      await fanOutInserting.done;
    }
  }

  test("a 2xx is recorded at once, and ends the endpoint's run", async () => {
    const delivery = await claimedDelivery();
    const started = performance.now();
    await duringFanOut(() =>
      recordDeliveredBatch(recorder.db, [
        { delivery, statusCode: 200, at: new Date(), durationMs: 3, responseBody: "ok" },
      ]),
    );
    expect(performance.now() - started).toBeLessThan(LOCK_TIMEOUT_MS);
    expect((await fx.delivery(endpointId, delivery.eventId))?.status).toBe("delivered");
    expect((await fx.endpointRow(endpointId)).lastSuccessAt).not.toBeNull();
  });

  test("a failed attempt is recorded at once, and counts toward the endpoint's run", async () => {
    const delivery = await claimedDelivery();
    const before = (await fx.endpointRow(endpointId)).failedAttemptsInARow;
    const outcome = await duringFanOut(() =>
      recordFailedAttempt(
        recorder.db,
        delivery,
        { statusCode: 500, error: "receiver answered 500", durationMs: 3, responseBody: null },
        { maxAttempts: 8, nextAttemptAt: () => new Date(Date.now() + 60_000), disableAfter: 3 },
      ),
    );
    expect(outcome.status).toBe("pending");
    const after = await fx.delivery(endpointId, delivery.eventId);
    expect(after).toMatchObject({ status: "pending", lastStatusCode: 500, lockedUntil: null });
    expect((await fx.endpointRow(endpointId)).failedAttemptsInARow).toBe(before + 1);
  });
});

/**
 * A recording that fails (here: it waits for the endpoint's row past the lock timeout) is tried
 * again while the delivery stays claimed: the answer is recorded once the row is free, and the
 * receiver is not sent the delivery a second time when the claim would have lapsed. So for a
 * 2xx and for a failure (whose next attempt, by the default schedule, is 30 s away).
 */
describe.skipIf(!databaseUrl)("a failed recording", () => {
  let fx: Fixture;
  let service: ServiceHandle;
  let blocker: postgres.Sql;
  const receiver = startReceiver();

  beforeAll(async () => {
    fx = await webhooksFixture();
    blocker = postgres(fx.database.url!, { max: 1, onnotice: () => {} });
    service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 20 });
  });

  afterAll(async () => {
    await service.stop();
    receiver.stop();
    await blocker.end();
    await fx.close();
  });

  /** Holds the endpoint's row as another recording would, until `release` is called. */
  async function holdEndpointRow(endpointId: string) {
    const held = await holdTransaction(
      blocker,
      (tx) => tx`select 1 from webhook_endpoints where id = ${endpointId} for no key update`,
    );
    return { release: held.release, holding: held.done };
  }

  test("of a failure is tried again until it is written, once; the delivery is not sent again", async () => {
    receiver.on("/failing-held", () => new Response("no", { status: 500 }));
    const endpoint = await fx.endpoint(receiver.url("/failing-held"));
    const before = (await fx.endpointRow(endpoint.id)).failedAttemptsInARow;
    const { release, holding } = await holdEndpointRow(endpoint.id);
    const { eventId } = await fx.submitted();
    await eventually(() => receiver.at("/failing-held").length > 0, { message: "the request" });
    setTimeout(release, 4_000);
    await holding;
    const recorded = await eventually(
      async () => {
        const row = await fx.delivery(endpoint.id, eventId);
        return row?.lastStatusCode === 500 ? row : null;
      },
      { message: "the failure recorded", timeoutMs: 15_000 },
    );
    expect(recorded).toMatchObject({ status: "pending", attempts: 1, lockedUntil: null });
    expect((await fx.endpointRow(endpoint.id)).failedAttemptsInARow).toBe(before + 1);
    // Past the claim's lease: had the answer been given up, the delivery would be sent again.
    await new Promise((resolve) => setTimeout(resolve, CLAIM_LEASE_MS));
    expect(receiver.at("/failing-held")).toHaveLength(1);
    const attempts = await fx.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, recorded.id));
    expect(
      attempts.map((attempt) => [attempt.attempt, attempt.statusCode, attempt.inFlight]),
    ).toEqual([[1, 500, false]]);
  }, 40_000);

  test("of a 2xx is tried again until it is written; the delivery is sent once", async () => {
    const endpoint = await fx.endpoint(receiver.url("/held"));
    // Another recording of the endpoint, say, holding its row longer than the lock timeout
    // (3 s by default): the first recording of the answer fails.
    const { release, holding } = await holdEndpointRow(endpoint.id);
    const { eventId } = await fx.submitted();
    await eventually(() => receiver.at("/held").length > 0, { message: "the request" });
    setTimeout(release, 4_000);
    await holding;
    const delivered = await eventually(
      async () => {
        const row = await fx.delivery(endpoint.id, eventId);
        return row?.status === "delivered" ? row : null;
      },
      { message: "the delivery recorded as delivered", timeoutMs: 15_000 },
    );
    expect(delivered.attempts).toBe(1);
    // Past the claim's lease: had the answer been given up, the delivery would be sent again.
    await new Promise((resolve) => setTimeout(resolve, CLAIM_LEASE_MS));
    expect(receiver.at("/held")).toHaveLength(1);
  }, 40_000);
});
