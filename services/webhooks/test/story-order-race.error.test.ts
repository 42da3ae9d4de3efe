import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, openDatabase } from "@newsroom/shared/db/index";
import { outboxEvents, webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { requireService } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { type DeliveryRow, openAttempts, recordFailedAttempt } from "../src/delivery/store.ts";
import { updateWebhookEndpointOptions } from "../src/endpoints/service.ts";
import { fanOutStoryEvents } from "../src/fan-out/store.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";
import { holdTransaction } from "./support/held-transaction.ts";

const databaseUrl = requireService("DATABASE_URL");

/** When the first event's failed attempt is retried: well after the test. */
const RETRY_IN_MS = 60_000;

/**
 * `ordering: story`: a later event of a story is not due before the retry of an earlier one.
 * The fan-out of the later event and the recording of the earlier event's failed attempt may
 * run at the same moment, each in its own transaction (READ COMMITTED: every statement reads
 * what was committed when it started). Whichever commits first, the later event ends up due no
 * sooner than the retry. Each interleaving is driven step by step over separate connections.
 */
describe.skipIf(!databaseUrl)("story order while a failed attempt is recorded", () => {
  let fx: Fixture;
  /** The fan-out's connection. */
  let fanOut: Database;
  /** The recorder's connection. */
  let recorder: Database;
  /** Another recording of the endpoint, holding the endpoint's row. */
  let blocker: postgres.Sql;
  let endpointId: string;

  beforeAll(async () => {
    fx = await webhooksFixture();
    const options = {
      url: fx.database.url!,
      max: 1,
      timeouts: { statementMs: 20_000, lockMs: 20_000, idleInTransactionMs: 0, connectMs: 5_000 },
    };
    fanOut = await openDatabase(options);
    recorder = await openDatabase(options);
    blocker = postgres(fx.database.url!, { max: 1, onnotice: () => {} });
    endpointId = (
      await fx.endpoint("http://127.0.0.1:9/hook", undefined, undefined, { ordering: "story" })
    ).id;
  });

  afterAll(async () => {
    await blocker.end();
    await recorder.close();
    await fanOut.close();
    await fx.close();
  });

  /** The story's first event, claimed, its attempt opened and its request on the way. */
  async function firstEventInFlight(
    storyId: string,
    endpoint = endpointId,
    eventId = newId(),
  ): Promise<DeliveryRow> {
    const [row] = await fx.db
      .insert(webhookDeliveries)
      .values({
        id: newId(),
        organizationId: fx.orgId,
        endpointId: endpoint,
        eventId,
        eventType: "story.submitted",
        storyId,
        eventCreatedAt: new Date(),
        nextAttemptAt: new Date(),
        lockedUntil: new Date(Date.now() + 60_000),
        storyOrder: endpoint === endpointId ? 1 : null,
      })
      .returning();
    await openAttempts(fx.db, [row!]);
    const [opened] = await fx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, row!.id));
    return opened!;
  }

  const recordFailure = (delivery: DeliveryRow) =>
    recordFailedAttempt(
      recorder.db,
      delivery,
      { statusCode: 500, error: "receiver answered 500", durationMs: 3, responseBody: null },
      {
        maxAttempts: 3,
        nextAttemptAt: () => new Date(Date.now() + RETRY_IN_MS),
        disableAfter: 10,
      },
    );

  /**
   * The fan-out of the story's second event (its outbox row says its place: 2), in a
   * transaction left open until `commit`.
   */
  function fanOutSecondEvent(storyId: string) {
    const eventId = newId();
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let inserted = false;
    const transaction = (async () => {
      const createdAt = new Date();
      await fx.db.insert(outboxEvents).values({
        id: eventId,
        organizationId: fx.orgId,
        type: "story.approved",
        storyId,
        sequence: 2,
        previousStatus: "review_required",
        createdAt,
      });
      await fanOut.db.transaction(async (tx) => {
        const {
          events: [fanned],
        } = await fanOutStoryEvents(
          tx,
          [
            {
              id: eventId,
              type: "story.approved",
              organizationId: fx.orgId,
              storyId,
              createdAt,
              traceParent: null,
            },
          ],
          new Date(),
        );
        expect(fanned).toEqual({ eventId, created: 1 });
        inserted = true;
        await committed;
      });
    })();
    return { eventId, transaction, commit, inserted: () => inserted };
  }

  /** Statements of this database waiting for a row lock right now. */
  async function waitingForLocks(): Promise<number> {
    const result = await fx.db.execute(sql`
      select count(*)::int as waiting from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`);
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
      waiting: number;
    }[];
    return rows[0]!.waiting;
  }

  /** Settles once `done()` is true or `waiters` statements wait for a lock, whichever first. */
  async function doneOrWaiting(done: () => boolean, waiters: number, message: string) {
    await eventually(async () => done() || (await waitingForLocks()) >= waiters, { message });
  }

  async function expectHeldBehindTheRetry(first: DeliveryRow, secondEventId: string) {
    const retried = (await fx.delivery(endpointId, first.eventId))!;
    const second = (await fx.delivery(endpointId, secondEventId))!;
    expect(retried).toMatchObject({ status: "pending", attempts: 1, lockedUntil: null });
    expect(retried.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + RETRY_IN_MS / 2);
    expect(second).toMatchObject({ status: "pending", attempts: 0, storyOrder: 2 });
    expect(second.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(
      retried.nextAttemptAt!.getTime(),
    );
  }

  test("the fan-out inserts first, the recording commits first: the later event is held", async () => {
    const storyId = newId();
    const first = await firstEventInFlight(storyId);
    // The fan-out has inserted the second event's delivery (the first one still due, its
    // failure not yet recorded) and has not committed.
    const second = fanOutSecondEvent(storyId);
    await eventually(second.inserted, { message: "the second event's delivery inserted" });
    // The recording starts now: it either runs through, not seeing the uncommitted delivery,
    // or waits for the fan-out's transaction.
    let recorded = false;
    const recording = recordFailure(first).then((outcome) => {
      recorded = true;
      return outcome;
    });
    await doneOrWaiting(() => recorded, 1, "the recording done or waiting for the fan-out");
    second.commit();
    await second.transaction;
    expect((await recording).status).toBe("pending");
    await expectHeldBehindTheRetry(first, second.eventId);
  }, 30_000);

  test("the recording locks first, the fan-out commits last: the later event is held", async () => {
    const storyId = newId();
    const first = await firstEventInFlight(storyId);
    // Another recording of the endpoint holds its row: this recording stops there, after it has
    // written the first event's retry and before it holds the story's later events.
    const { release, done: holding } = await holdTransaction(
      blocker,
      (tx) => tx`select 1 from webhook_endpoints where id = ${endpointId} for no key update`,
    );
    const recording = recordFailure(first);
    await doneOrWaiting(() => false, 1, "the recording waiting for the endpoint's row");
    // The fan-out of the second event now: it either inserts at once (reading the first event
    // as it was before the recording), or waits for the recording's transaction.
    const second = fanOutSecondEvent(storyId);
    await doneOrWaiting(second.inserted, 2, "the fan-out inserted or waiting for the recording");
    release();
    await holding;
    // The recording finishes and commits before the fan-out does (unless it waits for it).
    let recorded = false;
    const outcome = recording.then((result) => {
      recorded = true;
      return result;
    });
    await eventually(() => recorded, { message: "the recording done" });
    second.commit();
    await second.transaction;
    expect((await outcome).status).toBe("pending");
    await expectHeldBehindTheRetry(first, second.eventId);
  }, 30_000);

  test("the ordering changes while a failed attempt is recorded: both commit", async () => {
    // An endpoint delivering as events come, its story's first event in flight.
    const unordered = (await fx.endpoint("http://127.0.0.1:9/unordered")).id;
    const { storyId, eventId } = await fx.submitted();
    const first = await firstEventInFlight(storyId, unordered, eventId);
    // Another transaction holds the attempt's row: the recording stops there, having locked
    // its delivery and before it locks the endpoint's row.
    const { release, done: holding } = await holdTransaction(
      blocker,
      (tx) => tx`select 1 from webhook_attempts where delivery_id = ${first.id} for update`,
    );
    const recording = recordFailure(first);
    await doneOrWaiting(() => false, 1, "the recording waiting for its attempt's row");
    // The ordering changes now: the endpoint's row and its pending deliveries, in one transaction.
    let changed = false;
    const change = updateWebhookEndpointOptions(fanOut.db, fx.orgId, unordered, {
      ordering: "story",
    }).then((row) => {
      changed = true;
      return row;
    });
    await doneOrWaiting(() => changed, 2, "the change done or waiting for the delivery");
    release();
    await holding;
    // Neither waits for the other in a circle: both are written.
    expect((await recording).status).toBe("pending");
    expect((await change).ordering).toBe("story");
    const placed = (await fx.delivery(unordered, eventId))!;
    expect(placed).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 500 });
    expect(placed.storyOrder).not.toBeNull();
  }, 30_000);

  test("a fan-out waiting for another's record of one of its events holds no lock on the story's earlier delivery", async () => {
    const storyId = newId();
    // The story's first event, in flight: its recording will lock its row.
    const earlier = await firstEventInFlight(storyId);
    // Its next two events, the second being recorded by another fan-out that has not committed.
    const [firstId, secondId] = [newId(), newId()].sort() as [string, string];
    const createdAt = new Date();
    const events = [firstId, secondId].map((id, index) => ({
      id,
      organizationId: fx.orgId,
      type: "story.approved" as const,
      storyId,
      sequence: 2 + index,
      createdAt,
    }));
    await fx.db.insert(outboxEvents).values(events);
    const otherFanOut = await holdTransaction(
      blocker,
      (tx) => tx`insert into webhook_fanned_out_events (event_id, fanned_out_at)
        values (${secondId}, now())`,
    );
    const fanning = fanOutStoryEvents(
      fanOut.db,
      events.map((event) => ({ ...event, traceParent: null })),
      new Date(),
    );
    await doneOrWaiting(() => false, 1, "the fan-out waiting for the other's record");
    // Meanwhile a recording of the earlier delivery's next attempt locks its row at once: the
    // waiting fan-out has written nothing yet, no delivery and no lock.
    const probe = postgres(fx.database.url!, { max: 1, onnotice: () => {} });
    try {
      await probe.begin(async (tx) => {
        await tx`set local lock_timeout = '1s'`;
        const locked = await tx`select id from webhook_deliveries where id = ${earlier.id}
          for update`;
        expect(locked).toHaveLength(1);
      });
    } finally {
      otherFanOut.release();
      await otherFanOut.done;
      await probe.end();
    }
    // The other recorded the second event: this one fans out the first alone.
    expect((await fanning).events.map((row) => row.eventId)).toEqual([firstId]);
    expect(await fx.delivery(endpointId, firstId)).toMatchObject({ storyOrder: 2 });
  }, 30_000);
});
