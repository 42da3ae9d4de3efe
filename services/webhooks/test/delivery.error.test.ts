import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { closedPort } from "@newsroom/shared/testing/ports";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { Webhook } from "standardwebhooks";
import { createWebhooksService, type WebhooksOptions } from "../src/app.ts";
import { disableWebhookEndpoint, enableWebhookEndpoint } from "../src/endpoints/service.ts";
import {
  attemptsRecorded,
  type Fixture,
  SHORT_SCHEDULE,
  webhooksFixture,
} from "./support/harness.ts";

let fx: Fixture;
let receiver: Receiver;

beforeAll(async () => {
  fx = await webhooksFixture();
  receiver = startReceiver();
});

afterAll(async () => {
  await fx.close();
  receiver.stop();
});

/** Runs a webhooks service with this retry schedule for the length of `body`. */
async function withService(
  schedule: string,
  body: () => Promise<void>,
  options: WebhooksOptions = {},
): Promise<void> {
  const service: ServiceHandle = await createWebhooksService(
    fx.runtime({ WEBHOOK_RETRY_SCHEDULE: schedule }),
    { pollIntervalMs: 20, ...options },
  );
  try {
    await body();
  } finally {
    await service.stop();
  }
}

function headersOf(hit: { headers: Headers }): Record<string, string> {
  const headers: Record<string, string> = {};
  hit.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

describe("failed attempts and retries", () => {
  test("500, redirect, timeout and refused connection each fail; the eighth failure is final", async () => {
    const org = await fx.organization();
    receiver.on("/status-500", () => new Response("broken", { status: 500 }));
    receiver.on(
      "/redirect",
      () => new Response(null, { status: 302, headers: { location: receiver.url("/target") } }),
    );
    receiver.on("/hang", () => new Promise<Response>(() => {}));
    const endpoints = {
      status: await fx.endpoint(receiver.url("/status-500"), ["story.submitted"], org),
      redirect: await fx.endpoint(receiver.url("/redirect"), ["story.submitted"], org),
      hang: await fx.endpoint(receiver.url("/hang"), ["story.submitted"], org),
      refused: await fx.endpoint(
        `http://127.0.0.1:${await closedPort()}/hooks`,
        ["story.submitted"],
        org,
      ),
    };

    await withService(
      SHORT_SCHEDULE,
      async () => {
        const { eventId } = await fx.submitted(org);
        for (const endpoint of Object.values(endpoints)) {
          await eventually(
            async () => (await fx.delivery(endpoint.id, eventId))?.status === "failed",
            { message: "the delivery to fail", timeoutMs: 15_000 },
          );
        }

        const status = await fx.delivery(endpoints.status.id, eventId);
        expect(status).toMatchObject({
          attempts: 8,
          lastStatusCode: 500,
          lastError: "receiver answered 500",
          nextAttemptAt: null,
          deliveredAt: null,
          lockedUntil: null,
        });
        const redirect = await fx.delivery(endpoints.redirect.id, eventId);
        expect(redirect).toMatchObject({ attempts: 8, lastStatusCode: 302 });
        expect(redirect!.lastError).toMatch(/redirect/);
        const hang = await fx.delivery(endpoints.hang.id, eventId);
        expect(hang).toMatchObject({ attempts: 8, lastStatusCode: null });
        expect(hang!.lastError).toMatch(/^timeout/);
        const refused = await fx.delivery(endpoints.refused.id, eventId);
        expect(refused).toMatchObject({
          attempts: 8,
          lastStatusCode: null,
          lastError: "connection refused",
        });

        // Eight requests each, never a ninth; the redirect is never followed.
        await Bun.sleep(200);
        expect(receiver.at("/status-500")).toHaveLength(8);
        expect(receiver.at("/redirect")).toHaveLength(8);
        expect(receiver.at("/hang")).toHaveLength(8);
        expect(receiver.at("/target")).toHaveLength(0);

        // Every attempt: the same webhook-id, a fresh timestamp, a valid signature.
        const hits = receiver.at("/status-500");
        const webhook = new Webhook(endpoints.status.secret);
        for (const hit of hits) {
          expect(hit.headers.get("webhook-id")).toBe(eventId);
          expect(
            Math.abs(Number(hit.headers.get("webhook-timestamp")) - hit.at / 1000),
          ).toBeLessThan(2);
          expect(() => webhook.verify(hit.body, headersOf(hit))).not.toThrow();
        }
        // Retries wait for the schedule's gap (50 ms here).
        for (let i = 1; i < hits.length; i++) {
          expect(hits[i]!.at - hits[i - 1]!.at).toBeGreaterThanOrEqual(45);
        }
        // One failed delivery each: not yet enough to disable.
        for (const endpoint of Object.values(endpoints)) {
          expect(await fx.endpointRow(endpoint.id)).toMatchObject({
            status: "enabled",
            consecutiveFailures: 1,
          });
        }
      },
      { attemptTimeoutMs: 300 },
    );
  }, 30_000);

  test("a failed attempt with retries left stays pending until the schedule says", async () => {
    const org = await fx.organization();
    let fail = true;
    receiver.on("/later", () => new Response(null, { status: fail ? 503 : 204 }));
    const endpoint = await fx.endpoint(receiver.url("/later"), ["story.submitted"], org);
    await withService("1,1,1,1,1,1,1", async () => {
      const { eventId } = await fx.submitted(org);
      const pending = await eventually(
        async () => {
          const row = await fx.delivery(endpoint.id, eventId);
          return attemptsRecorded(row) ? row : null;
        },
        { message: "the first attempt" },
      );
      expect(pending).toMatchObject({
        status: "pending",
        lastStatusCode: 503,
        lastError: "receiver answered 503",
        deliveredAt: null,
      });
      const wait = pending.nextAttemptAt!.getTime() - Date.now();
      expect(wait).toBeGreaterThan(500);
      expect(wait).toBeLessThanOrEqual(1_000);
      fail = false;
      const delivered = await eventually(
        async () => {
          const row = await fx.delivery(endpoint.id, eventId);
          return row?.status === "delivered" ? row : null;
        },
        { message: "the second attempt" },
      );
      expect(delivered).toMatchObject({
        attempts: 2,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
      });
      expect(receiver.at("/later")).toHaveLength(2);
    });
  });
});

describe("disabling endpoints", () => {
  test("three failed deliveries in a row disable it; a success between resets the count", async () => {
    const org = await fx.organization();
    let fail = true;
    receiver.on("/flaky", () => new Response(null, { status: fail ? 500 : 200 }));
    const flaky = await fx.endpoint(receiver.url("/flaky"), ["story.submitted"], org);
    const steady = await fx.endpoint(receiver.url("/steady"), ["story.submitted"], org);
    const settle = async (eventId: string, status: "delivered" | "failed") =>
      eventually(
        async () => {
          const row = await fx.delivery(flaky.id, eventId);
          return row?.status === status;
        },
        { message: `a ${status} delivery` },
      );

    await withService(SHORT_SCHEDULE, async () => {
      for (let i = 0; i < 2; i++) await settle((await fx.submitted(org)).eventId, "failed");
      expect(await fx.endpointRow(flaky.id)).toMatchObject({
        status: "enabled",
        consecutiveFailures: 2,
      });

      fail = false;
      await settle((await fx.submitted(org)).eventId, "delivered");
      expect((await fx.endpointRow(flaky.id)).consecutiveFailures).toBe(0);

      fail = true;
      for (let i = 0; i < 2; i++) await settle((await fx.submitted(org)).eventId, "failed");
      expect(await fx.endpointRow(flaky.id)).toMatchObject({
        status: "enabled",
        consecutiveFailures: 2,
      });

      await settle((await fx.submitted(org)).eventId, "failed");
      expect(await fx.endpointRow(flaky.id)).toMatchObject({
        status: "disabled",
        disabledReason: "failing",
        consecutiveFailures: 3,
      });
      // Announced on the bus (the workspace audits it from there): nothing is owed any more.
      await eventually(
        async () => (await fx.endpointRow(flaky.id)).disabledAnnouncementId === null,
        { message: "the disabling announced" },
      );

      // Disabled: no new deliveries, while the steady endpoint still gets its own.
      const { eventId } = await fx.submitted(org);
      await eventually(
        async () => {
          return (await fx.delivery(steady.id, eventId))?.status === "delivered";
        },
        { message: "the steady delivery" },
      );
      expect(await fx.delivery(flaky.id, eventId)).toBeUndefined();
      expect(await fx.deliveriesOf(flaky.id)).toHaveLength(6);

      // Turned on again by its owner: a clean count, and deliveries resume.
      fail = false;
      expect(await enableWebhookEndpoint(fx.db, org, flaky.id)).toMatchObject({
        status: "enabled",
        disabledReason: null,
        consecutiveFailures: 0,
      });
      await settle((await fx.submitted(org)).eventId, "delivered");
    });
  }, 30_000);

  test("a disabled endpoint's pending deliveries stop and it gets no new ones", async () => {
    const org = await fx.organization();
    receiver.on("/stopped", () => new Response(null, { status: 500 }));
    const endpoint = await fx.endpoint(receiver.url("/stopped"), ["story.submitted"], org);
    await withService(
      "1,1,1,1,1,1,1",
      async () => {
        const { eventId } = await fx.submitted(org);
        await eventually(
          async () => {
            return attemptsRecorded(await fx.delivery(endpoint.id, eventId));
          },
          { message: "the first attempt" },
        );
        await disableWebhookEndpoint(fx.db, org, endpoint.id);
        const stopped = await eventually(
          async () => {
            const row = await fx.delivery(endpoint.id, eventId);
            return row?.status === "failed" ? row : null;
          },
          { message: "the delivery to stop" },
        );
        expect(stopped).toMatchObject({
          attempts: 1,
          lastError: "endpoint disabled",
          nextAttemptAt: null,
        });
        const next = await fx.submitted(org);
        await Bun.sleep(1_500);
        expect(receiver.at("/stopped")).toHaveLength(1);
        expect(await fx.delivery(endpoint.id, next.eventId)).toBeUndefined();
        // Disabled by its owner, not for failing: the reason and the count stay as they were.
        expect(await fx.endpointRow(endpoint.id)).toMatchObject({
          status: "disabled",
          disabledReason: "by_client",
          consecutiveFailures: 0,
        });
      },
      { reconcileIntervalMs: 100 },
    );
  }, 15_000);
});
