import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookAttempts, webhookFannedOutEvents } from "@newsroom/shared/db/schema";
import type { BusEvent } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { fanOutEvent, isWellFormedStoryEvent } from "../src/fan-out/service.ts";
import { attemptsRecorded, type Fixture, webhooksFixture } from "./support/harness.ts";

let fx: Fixture;
let receiver: Receiver;
let service: ServiceHandle;

beforeAll(async () => {
  fx = await webhooksFixture();
  receiver = startReceiver();
  service = await createWebhooksService(fx.runtime({ WEBHOOK_RETRY_SCHEDULE: "30" }), {
    pollIntervalMs: 20,
  });
});

afterAll(async () => {
  await service.stop();
  await fx.close();
  receiver.stop();
});

describe("tenancy", () => {
  test("the outbox row, not the message, says whose endpoints get an event", async () => {
    const owner = await fx.organization();
    const other = await fx.organization();
    await fx.endpoint(receiver.url("/owner"), ["story.submitted"], owner);
    const otherEndpoint = await fx.endpoint(receiver.url("/other"), ["story.submitted"], other);
    const story = await fx.story(owner);
    const eventId = await fx.transition(story.id, { action: "submit" });
    await eventually(() => receiver.at("/owner")[0], { message: "the owner's delivery" });
    // A forged copy claiming the other organization changes nothing, even if the event were
    // not yet recorded as fanned out.
    await fx.db.delete(webhookFannedOutEvents).where(eq(webhookFannedOutEvents.eventId, eventId));
    const forged = await fanOutEvent(fx.db, {
      id: eventId,
      type: "story.submitted",
      created_at: new Date().toISOString(),
      data: { organization_id: other, story_id: story.id },
    });
    expect(forged.created).toBe(0);
    expect(await fx.deliveriesOf(otherEndpoint.id)).toHaveLength(0);
  });
});

describe("what is kept and shown", () => {
  test("a receiver's answer: its first 1 KiB is kept in the attempt details for the workspace, never in the delivery log the client API reads", async () => {
    const org = await fx.organization();
    receiver.on(
      "/chatty",
      () => new Response("internal stack trace: password=hunter2", { status: 500 }),
    );
    const endpoint = await fx.endpoint(receiver.url("/chatty"), ["story.submitted"], org);
    const { eventId } = await fx.submitted(org);
    const row = await eventually(
      async () => {
        const delivery = await fx.delivery(endpoint.id, eventId);
        return attemptsRecorded(delivery) ? delivery : null;
      },
      { message: "the failed attempt" },
    );
    expect(row.lastError).toBe("receiver answered 500");
    expect(JSON.stringify(row)).not.toContain("hunter2");
    const [attempt] = await fx.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, row.id));
    expect(attempt?.responseBody).toBe("internal stack trace: password=hunter2");
    // The attempt row holds the answer only: never the request's headers, body or secret.
    expect(JSON.stringify(attempt)).not.toContain(endpoint.secret.slice("whsec_".length));
    expect(Object.keys(attempt!).sort()).toEqual(
      [
        "at",
        "attempt",
        "deliveryId",
        "durationMs",
        "id",
        "inFlight",
        "organizationId",
        "reason",
        "responseBody",
        "statusCode",
      ].sort(),
    );
  });
});

describe("bus input", () => {
  test("malformed messages are dropped and the consumer carries on", async () => {
    const org = await fx.organization();
    await fx.endpoint(receiver.url("/after-junk"), ["story.submitted"], org);
    const junk = [
      { id: "not-a-uuid", type: "story.submitted", created_at: "x", data: {} },
      {
        id: newId(),
        type: "story.submitted",
        created_at: new Date().toISOString(),
        data: { organization_id: "'; drop table webhook_deliveries; --", story_id: null },
      },
      // The test event is no bus message any more: one on the bus is dropped like junk.
      { id: newId(), type: "webhook.test", created_at: "now", data: { endpoint_id: 7 } },
      // A time past the year 9999: no timestamp holds it.
      {
        id: newId(),
        type: "story.submitted",
        created_at: "+010000-01-01T00:00:00.000Z",
        data: { organization_id: org, story_id: null },
      },
    ];
    for (const event of junk) await fx.bus.publish(event as unknown as BusEvent);
    const { eventId } = await fx.submitted(org);
    const hit = await eventually(() => receiver.at("/after-junk")[0], {
      message: "the good event",
    });
    expect(hit.headers.get("webhook-id")).toBe(eventId);
  });

  test("a story event's time must be one a timestamp holds (years 0-9999)", () => {
    const event = (createdAt: string) => ({
      id: newId(),
      type: "story.submitted",
      created_at: createdAt,
      data: { organization_id: newId(), story_id: newId() },
    });
    expect(isWellFormedStoryEvent(event("2026-11-27T16:00:00.000Z"))).toBe(true);
    // Each of these reads as a date, and would fail the fan-out of every event batched with it.
    expect(isWellFormedStoryEvent(event("+010000-01-01T00:00:00.000Z"))).toBe(false);
    expect(isWellFormedStoryEvent(event("-000001-01-01T00:00:00.000Z"))).toBe(false);
    expect(isWellFormedStoryEvent(event("10000-01-01"))).toBe(false);
  });
});
