import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BusEvent, WebhookEndpointDisabledEvent } from "@newsroom/shared/events";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { createWebhooksService } from "../src/app.ts";
import { announceDisabledEndpoints } from "../src/endpoint-disabled/announce.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

/**
 * An endpoint disabled for failing is announced on the bus (`webhook_endpoint.disabled`), once
 * the disabling committed; a publish that fails leaves the announcement owed, and the next pass
 * publishes it under the same id.
 */
let fx: Fixture;
let receiver: Receiver;
const heard: WebhookEndpointDisabledEvent[] = [];

beforeAll(async () => {
  // Two attempts per delivery, 50 ms apart.
  fx = await webhooksFixture({ env: { WEBHOOK_RETRY_SCHEDULE: "0.05" } });
  receiver = startReceiver();
  receiver.on("/down", () => new Response("no", { status: 500 }));
  await fx.bus.subscribe(
    async (event: BusEvent) => {
      if (event.type === "webhook_endpoint.disabled") heard.push(event);
    },
    { durable: "test-disabled", types: ["webhook_endpoint.disabled"] },
  );
});

afterAll(async () => {
  receiver.stop();
  await fx.close();
});

/** An endpoint of `org` that fails until the running service disables it. */
async function disabledEndpoint(org: string) {
  const endpoint = await fx.endpoint(receiver.url("/down"), ["story.submitted"], org);
  for (let i = 0; i < 4; i++) await fx.submitted(org);
  await eventually(async () => (await fx.endpointRow(endpoint.id)).status === "disabled", {
    message: "the endpoint disabled",
  });
  return endpoint;
}

describe("the webhook_endpoint.disabled event", () => {
  test("published once the disabling committed, with the endpoint and the last failure", async () => {
    const service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 20 });
    try {
      const org = await fx.organization();
      const endpoint = await disabledEndpoint(org);
      const event = await eventually(() => heard.find((e) => e.data.endpoint_id === endpoint.id), {
        message: "the event",
      });
      expect(event.data).toEqual({
        organization_id: org,
        endpoint_id: endpoint.id,
        url: receiver.url("/down"),
        reason: "failing",
        failed_in_a_row: 3,
        last_error: "receiver answered 500",
        receiver_gone: false,
      });
      // Announced: nothing is owed any more, and a later pass publishes nothing again.
      await eventually(
        async () => (await fx.endpointRow(endpoint.id)).disabledAnnouncementId === null,
        {
          message: "the announcement cleared",
        },
      );
      expect(await announceDisabledEndpoints(fx.db, fx.bus, 3)).toBe(0);
      await Bun.sleep(200);
      expect(heard.filter((e) => e.data.endpoint_id === endpoint.id)).toHaveLength(1);
    } finally {
      await service.stop();
    }
  });

  test("a 410 Gone disables the endpoint at its first answer, stops the rest and is announced", async () => {
    receiver.on("/gone", () => new Response("unsubscribed", { status: 410 }));
    const org = await fx.organization();
    const endpoint = await fx.endpoint(receiver.url("/gone"), ["story.submitted"], org);
    const service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 20 });
    try {
      const { eventId } = await fx.submitted(org);
      await eventually(async () => (await fx.endpointRow(endpoint.id)).status === "disabled", {
        message: "the endpoint disabled",
      });
      expect(await fx.endpointRow(endpoint.id)).toMatchObject({
        disabledReason: "failing",
        consecutiveFailures: 1,
      });
      // One attempt, no retry: the delivery is failed with the receiver's answer.
      expect(await fx.delivery(endpoint.id, eventId)).toMatchObject({
        status: "failed",
        attempts: 1,
        lastStatusCode: 410,
        lastError: "receiver answered 410",
        nextAttemptAt: null,
      });
      const event = await eventually(() => heard.find((e) => e.data.endpoint_id === endpoint.id), {
        message: "the event",
      });
      expect(event.data).toMatchObject({
        reason: "failing",
        failed_in_a_row: 1,
        last_error: "receiver answered 410",
        receiver_gone: true,
      });
      // Nothing more is sent: a later event is not even queued for the disabled endpoint.
      await fx.submitted(org);
      await Bun.sleep(300);
      expect(receiver.at("/gone")).toHaveLength(1);
    } finally {
      await service.stop();
    }
  });

  test("a publish that fails after the commit is owed, and the periodic pass publishes it", async () => {
    const realPublish = fx.bus.publish.bind(fx.bus);
    let refuse = true;
    fx.bus.publish = async (event) => {
      if (refuse && event.type === "webhook_endpoint.disabled") throw new Error("bus down");
      return realPublish(event);
    };
    // A long reconcile interval: only the pass at start and the one this test runs by hand.
    const service = await createWebhooksService(fx.runtime(), {
      pollIntervalMs: 20,
      reconcileIntervalMs: 60_000,
    });
    try {
      const org = await fx.organization();
      const endpoint = await disabledEndpoint(org);
      const owed = await eventually(
        async () => (await fx.endpointRow(endpoint.id)).disabledAnnouncementId,
        { message: "the announcement owed" },
      );
      await Bun.sleep(200);
      expect(heard.filter((e) => e.data.endpoint_id === endpoint.id)).toHaveLength(0);
      expect((await fx.endpointRow(endpoint.id)).disabledAnnouncementId).toBe(owed);

      refuse = false;
      expect(await announceDisabledEndpoints(fx.db, fx.bus, 3)).toBe(1);
      const event = await eventually(() => heard.find((e) => e.data.endpoint_id === endpoint.id), {
        message: "the event",
      });
      // The id is the one owed since the disabling: a repeat is the same event.
      expect(event.id).toBe(owed);
      expect((await fx.endpointRow(endpoint.id)).disabledAnnouncementId).toBeNull();
    } finally {
      fx.bus.publish = realPublish;
      await service.stop();
    }
  });
});
