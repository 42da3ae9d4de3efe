import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { secretsKey } from "@newsroom/shared/config";
import {
  outboxEvents,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpointLeases,
} from "@newsroom/shared/db/schema";
import type { StoryEvent } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { eventually } from "@newsroom/shared/testing/eventually";
import { startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { and, eq, ne } from "drizzle-orm";
import { claimAndOpenAttempts, type OpenedClaim } from "../src/delivery/store.ts";
import { DeliveryWorker } from "../src/delivery/worker.ts";
import { fanOutEvents, storyEventOf } from "../src/fan-out/service.ts";
import type { FanOutClaim, FanOutClaimer } from "../src/fan-out/store.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

/**
 * A fan-out claims some of the deliveries it inserts for the dispatcher of its process: inserted
 * claimed with their first attempt open and their endpoint's lease taken, read back with what
 * they are sent with; the others are left to the claims.
 */
let fx: Fixture;

beforeAll(async () => {
  fx = await webhooksFixture();
});

afterAll(async () => {
  await fx.close();
});

/** A dispatcher that offers `offer` and keeps what each statement claimed for it. */
function offering(offer: Partial<FanOutClaim> = {}) {
  const workerId = newId();
  const ended: (OpenedClaim | null)[] = [];
  const claimer: FanOutClaimer = {
    offerToFanOut: () => ({
      workerId,
      leaseMs: 30_000,
      perEndpoint: 12,
      limit: 64,
      skipEndpoints: [],
      ...offer,
    }),
    claimedByFanOut: (_offer, claimed) => {
      ended.push(claimed);
    },
  };
  return { workerId, claimer, ended };
}

async function eventOf(eventId: string): Promise<StoryEvent> {
  const [row] = await fx.db.select().from(outboxEvents).where(eq(outboxEvents.id, eventId));
  return storyEventOf(row!);
}

const leaseOf = async (endpointId: string) => {
  const [row] = await fx.db
    .select()
    .from(webhookEndpointLeases)
    .where(eq(webhookEndpointLeases.endpointId, endpointId));
  return row;
};

describe("a fan-out that claims for its dispatcher", () => {
  test("inserts the delivery claimed, its attempt open and its lease taken, with what it is sent with", async () => {
    const org = await fx.organization();
    const endpoint = await fx.endpoint("http://127.0.0.1:1/plain", ["story.submitted"], org);
    const { storyId, eventId } = await fx.submitted(org);
    const { workerId, claimer, ended } = offering();

    const [result] = await fanOutEvents(fx.db, [await eventOf(eventId)], [null], claimer);

    expect(result).toEqual({ created: 1, claimed: 1, alreadyFannedOut: false });
    expect(ended).toHaveLength(1);
    const claimed = ended[0]!;
    expect(claimed.rows).toHaveLength(1);
    const row = claimed.rows[0]!;
    expect(claimed.opened.has(row.id)).toBe(true);
    expect(claimed.context.get(row.id)?.endpoint.id).toBe(endpoint.id);
    expect(claimed.context.get(row.id)?.story?.id).toBe(storyId);
    expect(claimed.context.get(row.id)?.order.previousStatus).toBe("draft");

    const stored = await fx.delivery(endpoint.id, eventId);
    expect(stored?.attempts).toBe(1);
    expect(stored?.lockedUntil?.getTime()).toBeGreaterThan(Date.now() + 20_000);
    const attempts = await fx.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, stored!.id));
    expect(attempts).toMatchObject([{ attempt: 1, inFlight: true }]);
    expect((await leaseOf(endpoint.id))?.workerId).toBe(workerId);

    // Another worker's claim finds it taken: the lease and the row are this worker's.
    const other = await claimAndOpenAttempts(fx.db, 64, {
      workerId: newId(),
      leaseMs: 30_000,
      perEndpoint: 12,
    });
    expect(other.rows.map((taken) => taken.endpointId)).not.toContain(endpoint.id);
  });

  test("leaves to the claims a paced endpoint's, one in story order, one behind a backlog, one another worker holds and one skipped", async () => {
    const org = await fx.organization();
    const endpoint = (path: string, options = {}) =>
      fx.endpoint(`http://127.0.0.1:1/${path}`, ["story.submitted"], org, options);
    const plain = await endpoint("plain");
    const paced = await endpoint("paced", { rate_limit_per_second: 5 });
    const ordered = await endpoint("ordered", { ordering: "story" });
    const behind = await endpoint("behind");
    const held = await endpoint("held");
    const skipped = await endpoint("skipped");
    // An earlier event's deliveries: all delivered but `behind`'s, left due and unclaimed.
    const earlier = await fx.submitted(org);
    await fanOutEvents(fx.db, [await eventOf(earlier.eventId)]);
    await fx.db
      .update(webhookDeliveries)
      .set({ status: "delivered", nextAttemptAt: null })
      .where(
        and(
          eq(webhookDeliveries.eventId, earlier.eventId),
          ne(webhookDeliveries.endpointId, behind.id),
        ),
      );
    await fx.db.insert(webhookEndpointLeases).values({
      endpointId: held.id,
      workerId: newId(),
      leasedUntil: new Date(Date.now() + 60_000),
    });
    const { eventId } = await fx.submitted(org);
    const { claimer, ended } = offering({ skipEndpoints: [skipped.id] });

    const [result] = await fanOutEvents(fx.db, [await eventOf(eventId)], [null], claimer);

    expect(result).toEqual({ created: 6, claimed: 1, alreadyFannedOut: false });
    expect(ended[0]?.rows.map((row) => row.endpointId)).toEqual([plain.id]);
    for (const other of [paced, ordered, behind, held, skipped]) {
      const row = await fx.delivery(other.id, eventId);
      expect({ attempts: row?.attempts, lockedUntil: row?.lockedUntil }).toEqual({
        attempts: 0,
        lockedUntil: null,
      });
    }
  });

  test("takes at most its limit, and at most its share of one endpoint, the first events first", async () => {
    const org = await fx.organization();
    const endpoints = [];
    for (const path of ["a", "b", "c"]) {
      endpoints.push(await fx.endpoint(`http://127.0.0.1:1/${path}`, ["story.submitted"], org));
    }
    const events: StoryEvent[] = [];
    for (let n = 0; n < 3; n++) {
      events.push(await eventOf((await fx.submitted(org)).eventId));
      // Each event in a millisecond of its own: the first events are the earliest.
      await Bun.sleep(2);
    }
    const { claimer, ended } = offering({ limit: 5, perEndpoint: 2 });

    const results = await fanOutEvents(fx.db, events, [null, null, null], claimer);

    expect(results.map((result) => result.created)).toEqual([3, 3, 3]);
    const claimed = ended[0]!.rows;
    expect(claimed).toHaveLength(5);
    const perEndpoint = new Map<string, number>();
    for (const row of claimed) {
      perEndpoint.set(row.endpointId, (perEndpoint.get(row.endpointId) ?? 0) + 1);
    }
    expect([...perEndpoint.values()].every((n) => n <= 2)).toBe(true);
    // The last event's deliveries are the ones left: each endpoint's first two were taken first.
    expect(claimed.some((row) => row.eventId === events[2]!.id)).toBe(false);
    expect(results.map((result) => result.claimed)).toEqual([3, 2, 0]);
  });

  test("its dispatcher sends what it claimed, with no claim of its own", async () => {
    const receiver = startReceiver();
    const org = await fx.organization();
    const endpoint = await fx.endpoint(receiver.url("/hook"), ["story.submitted"], org);
    // Never started: its loop makes no claim, so only the fan-out can hand it the delivery.
    const worker = new DeliveryWorker({
      db: fx.db,
      secretsKey: secretsKey(fx.config),
      schedule: [1],
      pollIntervalMs: 60_000,
      allowInsecureTargets: true,
    });
    try {
      const { eventId } = await fx.submitted(org);
      const [result] = await fanOutEvents(fx.db, [await eventOf(eventId)], [null], worker);
      expect(result).toMatchObject({ created: 1, claimed: 1 });
      await eventually(
        async () => (await fx.delivery(endpoint.id, eventId))?.status === "delivered",
        { message: "the delivery recorded as delivered" },
      );
      const hits = receiver.at("/hook");
      expect(hits).toHaveLength(1);
      expect(hits[0]?.headers.get("webhook-id")).toBe(eventId);
      const stored = await fx.delivery(endpoint.id, eventId);
      expect({ attempts: stored?.attempts, lockedUntil: stored?.lockedUntil }).toEqual({
        attempts: 1,
        lockedUntil: null,
      });
    } finally {
      await worker.stop();
      receiver.stop();
    }
  });

  test("a worker fed by its own fan-out still claims, within moments, what another fan-out left it", async () => {
    const receiver = startReceiver();
    // Each answer takes 100 ms: the worker's answers keep coming for a while.
    receiver.on("/busy", async () => {
      await Bun.sleep(100);
      return new Response("ok");
    });
    const org = await fx.organization();
    const elsewhere = await fx.organization();
    await fx.endpoint(receiver.url("/busy"), ["story.submitted"], org);
    const quiet = await fx.endpoint(receiver.url("/quiet"), ["story.submitted"], elsewhere);
    // Nothing else due: the worker's first claim finds nothing, and answers alone can start
    // the next one (its poll is far off).
    await fx.db
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null })
      .where(eq(webhookDeliveries.status, "pending"));
    const worker = new DeliveryWorker({
      db: fx.db,
      secretsKey: secretsKey(fx.config),
      schedule: [1],
      pollIntervalMs: 30_000,
      allowInsecureTargets: true,
    });
    worker.start();
    try {
      await Bun.sleep(200);
      // Another replica's fan-out: nothing claimed, and nothing tells this worker.
      const other = await fx.submitted(elsewhere);
      await fanOutEvents(fx.db, [await eventOf(other.eventId)]);
      const events: StoryEvent[] = [];
      for (let n = 0; n < 12; n++) events.push(await eventOf((await fx.submitted(org)).eventId));
      const fed = await fanOutEvents(
        fx.db,
        events,
        events.map(() => null),
        worker,
      );
      expect(fed.every((result) => result.claimed === 1)).toBe(true);
      await eventually(
        async () => (await fx.delivery(quiet.id, other.eventId))?.status === "delivered",
        { message: "the other fan-out's delivery", timeoutMs: 5_000 },
      );
      expect(receiver.at("/busy").length).toBeGreaterThan(0);
    } finally {
      await worker.stop();
      receiver.stop();
    }
  });
});
