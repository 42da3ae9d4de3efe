import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { createWebhooksService } from "../src/app.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

let fx: Fixture;
let receiver: Receiver;
/** Requests the dispatcher has open per path (a pass-through spy on fetch), and the most. */
const open = new Map<string, number>();
const mostOpen = new Map<string, number>();
const realFetch = globalThis.fetch;

beforeAll(async () => {
  fx = await webhooksFixture();
  receiver = startReceiver();
  globalThis.fetch = Object.assign(
    async (input: string | URL | Request, init?: RequestInit) => {
      const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
      open.set(path, (open.get(path) ?? 0) + 1);
      mostOpen.set(path, Math.max(open.get(path)!, mostOpen.get(path) ?? 0));
      try {
        return await realFetch(input, init);
      } finally {
        open.set(path, open.get(path)! - 1);
      }
    },
    { preconnect: realFetch.preconnect },
  ) as typeof fetch;
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  await fx.close();
  receiver.stop();
});

const SLOW_ENDPOINTS = 10;
/** Events of the slow organization: 80 deliveries, more than the worker's 64 slots. */
const SLOW_EVENTS = 8;
const ATTEMPT_TIMEOUT_MS = 2_000;
/** The default cap: the ten hanging endpoints hold 40 of the worker's 64 slots. */
const PER_ENDPOINT = 4;

describe("one organization's slow endpoints", () => {
  test("cannot take every slot: another organization's deliveries keep arriving", async () => {
    const slowOrg = await fx.organization();
    const slow: string[] = [];
    for (let i = 0; i < SLOW_ENDPOINTS; i++) {
      // Accepts the request and never answers: each attempt lasts the whole timeout.
      receiver.on(`/slow-${i}`, () => new Promise<Response>(() => {}));
      slow.push((await fx.endpoint(receiver.url(`/slow-${i}`), ["story.submitted"], slowOrg)).id);
    }
    const healthyOrg = await fx.organization();
    await fx.endpoint(receiver.url("/healthy"), ["story.submitted"], healthyOrg);
    const slowHits = () => receiver.hits.filter((hit) => hit.path.startsWith("/slow-"));

    const service: ServiceHandle = await createWebhooksService(
      fx.runtime({ WEBHOOK_RETRY_SCHEDULE: "3600" }),
      { pollIntervalMs: 20, attemptTimeoutMs: ATTEMPT_TIMEOUT_MS },
    );
    try {
      for (let i = 0; i < SLOW_EVENTS; i++) await fx.submitted(slowOrg);
      await eventually(() => slowHits().length >= SLOW_ENDPOINTS * PER_ENDPOINT, {
        message: "the slow endpoints to hold their attempts",
      });

      // While they hang, each of the healthy organization's events arrives at once.
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        const before = receiver.at("/healthy").length;
        const sentAt = Date.now();
        await fx.submitted(healthyOrg);
        const hit = await eventually(() => receiver.at("/healthy")[before], {
          message: "the healthy delivery",
          timeoutMs: ATTEMPT_TIMEOUT_MS * 3,
        });
        latencies.push(hit.at - sentAt);
      }
      expect(latencies.filter((ms) => ms >= 1_000)).toEqual([]);

      // Rows past the cap waited for a place: every slow delivery was sent in the end.
      await eventually(
        () => slow.every((_, i) => receiver.at(`/slow-${i}`).length === SLOW_EVENTS),
        {
          message: "every slow delivery to be sent",
          timeoutMs: (SLOW_EVENTS / PER_ENDPOINT + 2) * ATTEMPT_TIMEOUT_MS,
        },
      );
    } finally {
      await service.stop();
    }

    // Never more than the cap's attempts at once to one endpoint, and the whole cap was used.
    for (let i = 0; i < SLOW_ENDPOINTS; i++) {
      const path = `/slow-${i}`;
      expect(receiver.at(path)).toHaveLength(SLOW_EVENTS);
      expect({ path, mostOpen: mostOpen.get(path) }).toEqual({ path, mostOpen: PER_ENDPOINT });
    }
  }, 60_000);

  test("answering quickly, an endpoint still never has more than its cap in flight", async () => {
    // Its place frees when a request ends, before the answer is written: the claims that fill
    // it must still leave the endpoint at its cap, counted at the sender.
    const org = await fx.organization();
    const paths = ["/quick-0", "/quick-1"];
    const events = 40;
    // Due before the service starts: every claim finds more than the cap waiting.
    for (const path of paths) {
      receiver.on(path, async () => {
        await Bun.sleep(10);
        return new Response("ok");
      });
      const endpoint = await fx.endpoint(receiver.url(path), ["story.submitted"], org);
      await fx.db.insert(webhookDeliveries).values(
        Array.from({ length: events }, () => ({
          id: newId(),
          organizationId: org,
          endpointId: endpoint.id,
          eventId: newId(),
          eventType: "story.submitted" as const,
          eventCreatedAt: new Date(),
          nextAttemptAt: new Date(),
        })),
      );
    }
    const service: ServiceHandle = await createWebhooksService(fx.runtime(), {
      pollIntervalMs: 20,
    });
    try {
      await eventually(() => paths.every((path) => receiver.at(path).length >= events), {
        message: "every quick delivery",
        timeoutMs: 20_000,
      });
    } finally {
      await service.stop();
    }
    for (const path of paths) {
      expect(receiver.at(path)).toHaveLength(events);
      expect(mostOpen.get(path)).toBeLessThanOrEqual(PER_ENDPOINT);
    }
  }, 60_000);
});
