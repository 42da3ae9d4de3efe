import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { executePrepared } from "@newsroom/shared/db/prepared";
import {
  outboxEvents,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
  webhookFannedOutEvents,
} from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { insertStory, insertStoryVersion } from "@newsroom/shared/testing/builders";
import { requireService } from "@newsroom/shared/testing/database";
import { eq, inArray } from "drizzle-orm";
import { claimedBodies, eventBodies, eventBody } from "../src/delivery/payload.ts";
import {
  claimAndOpenAttempts,
  claimStatement,
  openAttempts,
  openedClaimOf,
  recordDeliveredBatch,
  renewClaims,
} from "../src/delivery/store.ts";
import { fanOutEvents } from "../src/fan-out/service.ts";
import { type Fixture, random, webhooksFixture } from "./support/harness.ts";

let fx: Fixture;

beforeAll(async () => {
  fx = await webhooksFixture();
});

afterAll(async () => {
  await fx.close();
});

describe("bodies for a claimed batch", () => {
  test("one query gives the same bodies as one event at a time", async () => {
    const [orgA, orgB] = [await fx.organization(), await fx.organization()];
    const withTopics = await insertStory(fx.db, orgA, {
      type: "insight",
      slug: `t-${random()}`,
      title: "First title",
      summary: "First summary",
      topics: ["energy", "climate"],
    });
    await insertStoryVersion(fx.db, withTopics.id, { title: "Second title", summary: "Second" });
    const plain = await insertStory(fx.db, orgA, {
      type: "press_release",
      slug: `p-${random()}`,
      title: "Plain",
    });
    const otherOrg = await insertStory(fx.db, orgB, {
      type: "insight",
      slug: `o-${random()}`,
      title: "Other organization",
      topics: ["energy"],
    });
    const delivery = (organizationId: string, storyId: string | null) => ({
      organizationId,
      eventId: newId(),
      eventType: "story.published" as const,
      storyId,
      eventCreatedAt: new Date("2026-01-02T03:04:05.678Z"),
    });
    const deliveries = [
      delivery(orgA, withTopics.id),
      delivery(orgA, plain.id),
      delivery(orgB, otherOrg.id),
      delivery(orgA, newId()),
      delivery(orgA, null),
      // Organization A naming B's story: it is not A's, so it reads as gone.
      delivery(orgA, otherOrg.id),
    ];
    const bodies = await eventBodies(fx.db, deliveries);
    for (const one of deliveries) {
      expect(JSON.parse(bodies.get(one.eventId)!)).toEqual(JSON.parse(await eventBody(fx.db, one)));
    }
    const first = JSON.parse(bodies.get(deliveries[0]!.eventId)!);
    expect(first.data.story).toMatchObject({
      title: "Second title",
      summary: "Second",
      version: 2,
      topics: ["climate", "energy"],
    });
    expect(JSON.parse(bodies.get(deliveries[5]!.eventId)!).data.story).toBeNull();
  });

  test("a claim reads the bodies itself, the same as one event at a time", async () => {
    const [orgA, orgB] = [await fx.organization(), await fx.organization()];
    const withTopics = await insertStory(fx.db, orgA, {
      type: "insight",
      slug: `t-${random()}`,
      title: "First title",
      topics: ["energy", "climate"],
    });
    await insertStoryVersion(fx.db, withTopics.id, { title: "Second title", summary: "Second" });
    const ofB = await insertStory(fx.db, orgB, {
      type: "insight",
      slug: `b-${random()}`,
      title: "Other organization",
    });
    const event = (organizationId: string, sequence: number) => ({
      id: newId(),
      organizationId,
      type: "story.published" as const,
      storyId: withTopics.id,
      sequence,
      previousStatus: "scheduled" as const,
      createdAt: new Date(),
    });
    const [own, foreign] = [event(orgA, 3), event(orgB, 9)];
    await fx.db.insert(outboxEvents).values([own, foreign]);
    const endpoint = await fx.endpoint("http://127.0.0.1:1/claimed", ["story.published"], orgA);
    const delivery = (storyId: string | null, eventId = newId()) => ({
      id: newId(),
      organizationId: orgA,
      endpointId: endpoint.id,
      eventId,
      eventType: "story.published" as const,
      storyId,
      eventCreatedAt: new Date("2026-01-02T03:04:05.678Z"),
      nextAttemptAt: new Date(Date.now() - 1_000),
    });
    const deliveries = [
      delivery(withTopics.id, own.id),
      delivery(newId()),
      delivery(null),
      // Joined by id alone in the claim: another organization's story and event read as gone.
      delivery(ofB.id),
      delivery(withTopics.id, foreign.id),
    ];
    await fx.db.insert(webhookDeliveries).values(deliveries);

    const limits = { workerId: newId(), leaseMs: 60_000, tenureMs: 60_000, perEndpoint: 10 };
    const claim = await claimAndOpenAttempts(fx.db, 64, limits);
    const ours = claim.rows.filter((row) => row.endpointId === endpoint.id);
    expect(ours.map((row) => row.id).sort()).toEqual(deliveries.map((d) => d.id).sort());
    expect(ours.every((row) => claim.context.get(row.id)?.endpoint.id === endpoint.id)).toBe(true);
    const bodies = await claimedBodies(fx.db, ours, claim.context);
    for (const one of deliveries) {
      expect(JSON.parse(bodies.get(one.eventId)!)).toEqual(JSON.parse(await eventBody(fx.db, one)));
    }
    const body = (i: number) => JSON.parse(bodies.get(deliveries[i]!.eventId)!).data;
    expect(body(0)).toMatchObject({
      story: { title: "Second title", summary: "Second", topics: ["climate", "energy"] },
      sequence: 3,
      previous_status: "scheduled",
    });
    expect(body(1).story).toBeNull();
    expect(body(3).story).toBeNull();
    expect(body(4)).toMatchObject({ sequence: null, previous_status: null });
    expect(body(4).story.id).toBe(withTopics.id);
  });
});

describe("a claim's reads", () => {
  test("each endpoint's and each event's once, shared by every delivery of them", async () => {
    const endpoints = [];
    for (let i = 0; i < 3; i++) {
      const url = `http://127.0.0.1:1/shared-${i}`;
      endpoints.push({ url, ...(await fx.endpoint(url, ["story.submitted"])) });
    }
    const events = [];
    for (let i = 0; i < 4; i++) events.push(await fx.submitted());
    const expected = new Map<string, { endpointId: string; url: string; storyId: string }>();
    for (const endpoint of endpoints) {
      for (const event of events) {
        const row = await fx.pendingDelivery(endpoint.id, {
          eventId: event.eventId,
          eventType: "story.submitted",
          storyId: event.storyId,
          nextAttemptAt: new Date(Date.now() - 1_000),
        });
        expected.set(row.id, {
          endpointId: endpoint.id,
          url: endpoint.url,
          storyId: event.storyId,
        });
      }
    }

    const limits = { workerId: newId(), leaseMs: 60_000, perEndpoint: 10 };
    const rows = await executePrepared<Record<string, unknown>>(
      fx.db,
      "test_claim_reads",
      claimStatement(64, limits, new Date()),
    );
    const ours = rows.filter((row) => expected.has(row.id as string));
    expect(ours).toHaveLength(12);
    // Each endpoint's columns and each story's come on one row of the statement's answer.
    const carrying = (column: string) => ours.filter((row) => row[column] != null).length;
    expect(carrying("endpoint.url")).toBe(3);
    expect(carrying("story.id")).toBe(4);
    // And every delivery is sent with its own endpoint and story.
    const claim = openedClaimOf(rows);
    for (const [id, want] of expected) {
      const read = claim.context.get(id);
      expect(read?.endpoint.id).toBe(want.endpointId);
      expect(read?.endpoint.url).toBe(want.url);
      expect(read?.story?.id).toBe(want.storyId);
      expect(read?.order.previousStatus).toBe("draft");
    }
  });

  test("a delivery whose reads did not come is an error, not a request without its endpoint", () => {
    const row = { id: newId(), endpoint_id: newId(), event_id: newId(), organization_id: newId() };
    // The first row of its endpoint and event, the left joins having found nothing.
    const unread = { ...row, endpoint_first: true, event_first: true, "endpoint.id": null };
    expect(() => openedClaimOf([{ ...unread, "read.event_id": row.event_id }])).toThrow(
      /without its reads/,
    );
    expect(() =>
      openedClaimOf([{ ...unread, "endpoint.id": row.endpoint_id, "read.event_id": null }]),
    ).toThrow(/without its reads/);
  });
});

describe("fan-out of several events in one transaction", () => {
  test("per-event results; repeats, fanned-out events and other organizations", async () => {
    const [orgA, orgB] = [await fx.organization(), await fx.organization()];
    const a1 = await fx.endpoint("http://127.0.0.1:1/a1", ["story.published"], orgA);
    const a2 = await fx.endpoint("http://127.0.0.1:1/a2", ["story.submitted"], orgA);
    const b1 = await fx.endpoint("http://127.0.0.1:1/b1", ["story.published"], orgB);
    const outbox = (organizationId: string, type: "story.published" | "story.submitted") => ({
      id: newId(),
      organizationId,
      type,
      storyId: null,
      createdAt: new Date(),
    });
    const published = outbox(orgA, "story.published");
    const submitted = outbox(orgA, "story.submitted");
    const ofB = outbox(orgB, "story.published");
    const done = outbox(orgA, "story.published");
    await fx.db.insert(outboxEvents).values([published, submitted, ofB, done]);
    await fx.db
      .insert(webhookFannedOutEvents)
      .values({ eventId: done.id, fannedOutAt: new Date() });
    const asEvent = (row: typeof published) => ({
      id: row.id,
      type: row.type,
      created_at: row.createdAt.toISOString(),
      data: { organization_id: row.organizationId, story_id: null },
    });
    const noOutbox = { ...asEvent(outbox(orgB, "story.published")) };

    const results = await fanOutEvents(fx.db, [
      asEvent(published),
      asEvent(submitted),
      asEvent(ofB),
      asEvent(done),
      asEvent(published),
      noOutbox,
    ]);
    expect(results).toEqual([
      { created: 1, claimed: 0, alreadyFannedOut: false },
      { created: 1, claimed: 0, alreadyFannedOut: false },
      { created: 1, claimed: 0, alreadyFannedOut: false },
      { created: 0, claimed: 0, alreadyFannedOut: true },
      { created: 0, claimed: 0, alreadyFannedOut: true },
      { created: 1, claimed: 0, alreadyFannedOut: false },
    ]);
    const rows = await fx.db
      .select()
      .from(webhookDeliveries)
      .where(inArray(webhookDeliveries.endpointId, [a1.id, a2.id, b1.id]));
    const pairs = rows.map((row) => `${row.endpointId} ${row.eventId}`).sort();
    expect(pairs).toEqual(
      [
        `${a1.id} ${published.id}`,
        `${a2.id} ${submitted.id}`,
        `${b1.id} ${ofB.id}`,
        `${b1.id} ${noOutbox.id}`,
      ].sort(),
    );
    // Fan-out's own record, never the outbox's rows.
    const marked = await fx.db
      .select()
      .from(webhookFannedOutEvents)
      .where(inArray(webhookFannedOutEvents.eventId, [published.id, submitted.id, ofB.id]));
    expect(marked).toHaveLength(3);
    const outboxRows = await fx.db
      .select()
      .from(outboxEvents)
      .where(inArray(outboxEvents.id, [published.id, submitted.id, ofB.id]));
    expect(outboxRows.every((row) => row.fannedOutAt === null)).toBe(true);
    // Again: nothing new.
    const again = await fanOutEvents(fx.db, [asEvent(published), asEvent(ofB), noOutbox]);
    expect(again.map((result) => result.created)).toEqual([0, 0, 0]);
  });
});

describe("2xx answers recorded together", () => {
  test("each row gets its own status and time; others are untouched; failures reset", async () => {
    const org = await fx.organization();
    const endpoint = await fx.endpoint("http://127.0.0.1:1/rec", ["story.published"], org);
    await fx.db
      .update(webhookEndpoints)
      .set({ consecutiveFailures: 2 })
      .where(eq(webhookEndpoints.id, endpoint.id));
    const row = (status: "pending" | "failed") => ({
      id: newId(),
      organizationId: org,
      endpointId: endpoint.id,
      eventId: newId(),
      eventType: "story.published" as const,
      storyId: null,
      eventCreatedAt: new Date(),
      status,
      nextAttemptAt: new Date(),
      lockedUntil: new Date(Date.now() + 60_000),
    });
    const [one, two, stopped] = [row("pending"), row("pending"), row("failed")];
    await fx.db.insert(webhookDeliveries).values([one, two, stopped]);
    // As the worker does: the attempts are opened before their requests leave.
    await openAttempts(fx.db, [one, two]);
    const at1 = new Date("2026-03-04T05:06:07.891Z");
    const at2 = new Date("2026-03-04T05:06:08.123Z");
    await recordDeliveredBatch(fx.db, [
      { delivery: one, statusCode: 200, at: at1, durationMs: 12, responseBody: 'ok "1"\\' },
      { delivery: two, statusCode: 204, at: at2, durationMs: 7, responseBody: null },
      { delivery: stopped, statusCode: 200, at: at2, durationMs: 5, responseBody: "late" },
    ]);
    const byId = new Map((await fx.deliveriesOf(endpoint.id)).map((r) => [r.id, r]));
    expect(byId.get(one.id)).toMatchObject({
      status: "delivered",
      attempts: 1,
      lastStatusCode: 200,
      deliveredAt: at1,
      nextAttemptAt: null,
      lockedUntil: null,
    });
    expect(byId.get(two.id)).toMatchObject({ lastStatusCode: 204, deliveredAt: at2 });
    // Each delivered attempt is logged in the same statement; the stopped one is not.
    const logged = await fx.db
      .select()
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, [one.id, two.id, stopped.id]));
    expect(logged.map((row) => [row.deliveryId, row.attempt, row.statusCode]).sort()).toEqual(
      [
        [one.id, 1, 200],
        [two.id, 1, 204],
      ].sort(),
    );
    expect(logged.find((row) => row.deliveryId === one.id)).toMatchObject({
      at: at1,
      durationMs: 12,
      responseBody: 'ok "1"\\',
      reason: null,
    });
    expect(byId.get(stopped.id)).toMatchObject({
      status: "failed",
      attempts: 0,
      deliveredAt: null,
    });
    expect((await fx.endpointRow(endpoint.id)).consecutiveFailures).toBe(0);
  });
});

describe("claims renewed while their attempts run", () => {
  // Two connections at once: PostgreSQL only (PGlite has one).
  test.skipIf(!requireService("DATABASE_URL"))(
    "a row another statement holds is skipped, not waited for; the others are renewed",
    async () => {
      const org = await fx.organization();
      const endpoint = await fx.endpoint("http://127.0.0.1:1/renew", ["story.published"], org);
      const soon = new Date(Date.now() + 1_000);
      const row = () => ({
        id: newId(),
        organizationId: org,
        endpointId: endpoint.id,
        eventId: newId(),
        eventType: "story.published" as const,
        storyId: null,
        eventCreatedAt: new Date(),
        status: "pending" as const,
        nextAttemptAt: new Date(),
        lockedUntil: soon,
      });
      const [busy, free] = [row(), row()];
      await fx.db.insert(webhookDeliveries).values([busy, free]);
      const lease = 60_000;
      // As a recording does: the row is held by a transaction while the renewal runs.
      await fx.db.transaction(async (tx) => {
        await tx
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.id, busy.id))
          .for("update");
        const started = performance.now();
        await renewClaims(fx.db, [busy.id, free.id], lease);
        expect(performance.now() - started).toBeLessThan(2_000);
      });
      const byId = new Map(
        (
          await fx.db
            .select()
            .from(webhookDeliveries)
            .where(inArray(webhookDeliveries.id, [busy.id, free.id]))
        ).map((r) => [r.id, r.lockedUntil!.getTime()]),
      );
      expect(byId.get(busy.id)).toBe(soon.getTime());
      expect(byId.get(free.id)).toBeGreaterThan(Date.now() + lease / 2);
    },
  );
});
