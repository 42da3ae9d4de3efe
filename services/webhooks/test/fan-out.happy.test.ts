import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  outboxEvents,
  webhookDeliveries,
  webhookEndpoints,
  webhookFannedOutEvents,
} from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { fanOutEvent, storyEventOf } from "../src/fan-out/service.ts";
import { ALL_EVENTS, busKinds, type Fixture, webhooksFixture } from "./support/harness.ts";

let fx: Fixture;

beforeAll(async () => {
  fx = await webhooksFixture();
});

afterAll(async () => {
  await fx.close();
});

for (const kind of busKinds()) {
  describe(`fan-out from the ${kind} bus`, () => {
    let receiver: Receiver;
    let service: ServiceHandle;
    let org = "";

    beforeAll(async () => {
      await fx.useBus(kind);
      org = await fx.organization();
      receiver = startReceiver();
      service = await createWebhooksService(fx.runtime(), {
        pollIntervalMs: 50,
        reconcileIntervalMs: 200,
      });
    });

    afterAll(async () => {
      await service.stop();
      receiver.stop();
    });

    const outboxRow = async (eventId: string) => {
      const [row] = await fx.db.select().from(outboxEvents).where(eq(outboxEvents.id, eventId));
      return row!;
    };
    /** When this service recorded the event as fanned out, or null. */
    const fannedOutAt = async (eventId: string) => {
      const [row] = await fx.db
        .select()
        .from(webhookFannedOutEvents)
        .where(eq(webhookFannedOutEvents.eventId, eventId));
      return row?.fannedOutAt ?? null;
    };
    const deliveriesOfEvent = (eventId: string) =>
      fx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId));

    let eventId = "";
    let subscribed: string[] = [];

    test("one delivery per enabled endpoint of the organization subscribed to the type", async () => {
      const onlySubmitted = await fx.endpoint(
        receiver.url("/only-submitted"),
        ["story.submitted"],
        org,
      );
      const every = await fx.endpoint(receiver.url("/every"), ALL_EVENTS, org);
      await fx.endpoint(receiver.url("/only-published"), ["story.published"], org);
      const disabled = await fx.endpoint(receiver.url("/disabled"), ["story.submitted"], org);
      await fx.db
        .update(webhookEndpoints)
        .set({ status: "disabled", disabledReason: "by_client", updatedAt: new Date() })
        .where(eq(webhookEndpoints.id, disabled.id));
      const otherOrg = await fx.organization();
      await fx.endpoint(receiver.url("/other-org"), ["story.submitted"], otherOrg);
      subscribed = [onlySubmitted.id, every.id].sort();

      const submitted = await fx.submitted(org);
      eventId = submitted.eventId;
      await eventually(() => fannedOutAt(eventId), { message: "the event to be fanned out" });
      const outbox = await outboxRow(eventId);
      // The outbox is the workspace's: fanning out leaves it as it was.
      expect(outbox.fannedOutAt).toBeNull();

      const rows = await deliveriesOfEvent(eventId);
      expect(rows.map((row) => row.endpointId).sort()).toEqual(subscribed);
      for (const row of rows) {
        expect(row.organizationId).toBe(org);
        expect(row.eventType).toBe("story.submitted");
        expect(row.storyId).toBe(submitted.storyId);
        expect(row.eventCreatedAt.toISOString()).toBe(outbox.createdAt.toISOString());
      }
      await eventually(() => receiver.hits.length >= 2, { message: "both deliveries" });
      await Bun.sleep(200);
      expect(receiver.hits.map((hit) => hit.path).sort()).toEqual(["/every", "/only-submitted"]);
    });

    test("a redelivered event creates nothing new", async () => {
      const event = storyEventOf(await outboxRow(eventId));
      expect(await fanOutEvent(fx.db, event)).toEqual({
        created: 0,
        claimed: 0,
        alreadyFannedOut: true,
      });

      // Even if the record were missing, the unique (endpoint, event) pair holds.
      await fx.db.delete(webhookFannedOutEvents).where(eq(webhookFannedOutEvents.eventId, eventId));
      expect(await fanOutEvent(fx.db, event)).toEqual({
        created: 0,
        claimed: 0,
        alreadyFannedOut: false,
      });
      expect(await fannedOutAt(eventId)).not.toBeNull();

      // An endpoint added after the fan-out does not get the old event on redelivery.
      await fx.endpoint(receiver.url("/late"), ["story.submitted"], org);
      expect(await fanOutEvent(fx.db, event)).toEqual({
        created: 0,
        claimed: 0,
        alreadyFannedOut: true,
      });
      const rows = await deliveriesOfEvent(eventId);
      expect(rows.map((row) => row.endpointId).sort()).toEqual(subscribed);
      await Bun.sleep(200);
      expect(receiver.at("/late")).toHaveLength(0);
      expect(receiver.hits.filter((hit) => hit.headers.get("webhook-id") === eventId)).toHaveLength(
        2,
      );
    });

    test("the reconciler fans out an event whose bus message was lost", async () => {
      const endpoint = await fx.endpoint(receiver.url("/reconciled"), ["story.published"], org);
      const story = await fx.story(org);
      const lostId = newId();
      // Committed two minutes ago, never published: the bus never carried it.
      const createdAt = new Date(Date.now() - 120_000);
      await fx.db.insert(outboxEvents).values({
        id: lostId,
        organizationId: org,
        type: "story.published",
        storyId: story.id,
        createdAt,
      });
      const hit = await eventually(() => receiver.at("/reconciled")[0], {
        message: "the reconciled delivery",
      });
      expect(hit.headers.get("webhook-id")).toBe(lostId);
      expect(JSON.parse(hit.body).created_at).toBe(createdAt.toISOString());
      expect(await fannedOutAt(lostId)).not.toBeNull();
      expect((await outboxRow(lostId)).fannedOutAt).toBeNull();
      const delivery = await eventually(
        async () => {
          const row = await fx.delivery(endpoint.id, lostId);
          return row?.status === "delivered" ? row : null;
        },
        { message: "the delivery to be recorded" },
      );
      expect(delivery.attempts).toBe(1);
    });

    test("the reconciler leaves an event it has a record of alone, even if the bus lost it", async () => {
      const endpoint = await fx.endpoint(receiver.url("/recorded"), ["story.published"], org);
      const story = await fx.story(org);
      const recordedId = newId();
      await fx.db.insert(outboxEvents).values({
        id: recordedId,
        organizationId: org,
        type: "story.published",
        storyId: story.id,
        createdAt: new Date(Date.now() - 120_000),
      });
      // As the upgrade copies an old fanned-out mark: recorded, so never fanned out twice.
      await fx.db
        .insert(webhookFannedOutEvents)
        .values({ eventId: recordedId, fannedOutAt: new Date(Date.now() - 100_000) });
      await Bun.sleep(600);
      expect(await fx.deliveriesOf(endpoint.id)).toHaveLength(0);
    });

    test("the reconciler leaves events younger than a minute to the bus", async () => {
      const endpoint = await fx.endpoint(receiver.url("/young"), ["story.published"], org);
      const story = await fx.story(org);
      const youngId = newId();
      await fx.db.insert(outboxEvents).values({
        id: youngId,
        organizationId: org,
        type: "story.published",
        storyId: story.id,
        createdAt: new Date(Date.now() - 10_000),
      });
      await Bun.sleep(600);
      expect(await fannedOutAt(youngId)).toBeNull();
      expect(await fx.deliveriesOf(endpoint.id)).toHaveLength(0);
    });
  });
}
