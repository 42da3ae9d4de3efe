import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookEndpoints } from "@newsroom/shared/db/schema";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { statusIncidentEvent } from "@newsroom/shared/testing/status-events";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createWebhooksService } from "../src/app.ts";
import { fanOutStatusEvent } from "../src/fan-out/status.ts";
import { busKinds, type Fixture, SHORT_SCHEDULE, webhooksFixture } from "./support/harness.ts";

/**
 * The status page's events reach the subscribed endpoints of every organization, signed like
 * story events; endpoints not subscribed (or disabled) get nothing.
 */
let fx: Fixture;

beforeAll(async () => {
  fx = await webhooksFixture({ env: { WEBHOOK_RETRY_SCHEDULE: SHORT_SCHEDULE } });
});

afterAll(async () => {
  await fx.close();
});

const STATUS = "status.incident_updated" as const;

for (const kind of busKinds()) {
  describe(`status events from the ${kind} bus`, () => {
    let receiver: Receiver;
    let service: ServiceHandle;

    beforeAll(async () => {
      await fx.useBus(kind);
      receiver = startReceiver();
      service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 20 });
    });

    afterAll(async () => {
      await service.stop();
      receiver.stop();
    });

    test("two organizations' subscribed endpoints get it, verified; the others nothing", async () => {
      const [first, second, third] = [
        await fx.organization(),
        await fx.organization(),
        await fx.organization(),
      ];
      const a = await fx.endpoint(receiver.url("/a"), [STATUS], first);
      // Topics limit story events only: a status event still comes.
      const b = await fx.endpoint(receiver.url("/b"), ["story.submitted", STATUS], second, {
        topics: ["climate"],
      });
      const storiesOnly = await fx.endpoint(receiver.url("/c"), ["story.submitted"], third);
      const disabled = await fx.endpoint(receiver.url("/d"), [STATUS], third);
      await fx.db
        .update(webhookEndpoints)
        .set({ status: "disabled" })
        .where(eq(webhookEndpoints.id, disabled.id));

      const event = statusIncidentEvent();
      await fx.bus.publish(event);
      await eventually(() => receiver.at("/a").length === 1 && receiver.at("/b").length === 1, {
        message: "the status event at both subscribed endpoints",
        timeoutMs: 30_000,
      });

      for (const [path, endpoint] of [
        ["/a", a],
        ["/b", b],
      ] as const) {
        const [hit] = receiver.at(path);
        const verified = new Webhook(endpoint.secret).verify(hit!.body, {
          "webhook-id": hit!.headers.get("webhook-id")!,
          "webhook-timestamp": hit!.headers.get("webhook-timestamp")!,
          "webhook-signature": hit!.headers.get("webhook-signature")!,
        }) as Record<string, unknown>;
        expect(hit!.headers.get("webhook-id")).toBe(event.id);
        expect(verified).toEqual({
          id: event.id,
          object: "event",
          type: STATUS,
          created_at: event.created_at,
          timestamp: event.created_at,
          data: { incident: event.data.incident, update: event.data.update },
        });
        // Another endpoint's secret does not verify it.
        const other = endpoint === a ? b : a;
        expect(() =>
          new Webhook(other.secret).verify(hit!.body, {
            "webhook-id": hit!.headers.get("webhook-id")!,
            "webhook-timestamp": hit!.headers.get("webhook-timestamp")!,
            "webhook-signature": hit!.headers.get("webhook-signature")!,
          }),
        ).toThrow();
      }

      // The delivery log: each delivery belongs to its endpoint's organization.
      const delivered = await fx.delivery(a.id, event.id);
      expect(delivered?.organizationId).toBe(first);
      expect(delivered?.eventType).toBe(STATUS);
      expect(delivered?.storyId).toBeNull();
      expect((await fx.delivery(b.id, event.id))?.organizationId).toBe(second);
      expect(await fx.delivery(storiesOnly.id, event.id)).toBeUndefined();
      expect(await fx.delivery(disabled.id, event.id)).toBeUndefined();

      // A redelivered message creates nothing.
      expect(await fanOutStatusEvent(fx.db, event)).toEqual({
        created: 0,
        claimed: 0,
        alreadyFannedOut: true,
      });
      await Bun.sleep(300);
      expect(receiver.at("/a")).toHaveLength(1);
      expect(receiver.at("/c")).toHaveLength(0);
      expect(receiver.at("/d")).toHaveLength(0);
    });

    test("a failed attempt is retried with the same signed body", async () => {
      const org = await fx.organization();
      const flaky = await fx.endpoint(receiver.url("/flaky"), [STATUS], org);
      let calls = 0;
      receiver.on("/flaky", () => {
        calls += 1;
        return new Response("busy", { status: calls === 1 ? 503 : 200 });
      });
      const event = statusIncidentEvent({ update: { status: "resolved", body: "Fixed." } });
      await fx.bus.publish(event);
      await eventually(() => fx.delivery(flaky.id, event.id), {
        message: "the delivery",
      });
      await eventually(
        async () => (await fx.delivery(flaky.id, event.id))?.status === "delivered",
        { message: "the retried delivery delivered", timeoutMs: 30_000 },
      );
      const hits = receiver.at("/flaky");
      expect(hits).toHaveLength(2);
      expect(hits[1]!.body).toBe(hits[0]!.body);
      const body = JSON.parse(hits[1]!.body) as { data: { update: { body: string } } };
      expect(body.data.update.body).toBe("Fixed.");
      expect((await fx.delivery(flaky.id, event.id))?.attempts).toBe(2);
    });
  });
}
