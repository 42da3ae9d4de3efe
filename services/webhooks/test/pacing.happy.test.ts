import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
} from "@newsroom/shared/rate-limit";
import type { ServiceHandle } from "@newsroom/shared/service";
import { requireService } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { createWebhooksService } from "../src/app.ts";
import {
  PACING_UNKNOWN_WAIT_MS,
  PACING_WINDOW_MS,
  paceDeliveries,
} from "../src/delivery/pacing.ts";
import type { DeliveryRow, EndpointRow } from "../src/delivery/store.ts";
import { type Fixture, random, webhooksFixture } from "./support/harness.ts";

/**
 * An endpoint's `rate_limit_per_second` held by two dispatcher replicas sharing one database and
 * one rate-limit store (Redis when REDIS_URL is set, as in the distributed mode; else one store
 * in memory, as two workers of one process share it): the receiver never counts more requests
 * in a second than the rate, every delivery arrives, and none is counted as a failed attempt.
 */
const RATE = 5;
const EVENTS = 30;

let fx: Fixture;
let receiver: Receiver;
let pacing: RateLimitStore;
const replicas: ServiceHandle[] = [];

beforeAll(async () => {
  fx = await webhooksFixture();
  receiver = startReceiver();
  const redisUrl = requireService("REDIS_URL");
  pacing = redisUrl
    ? new RedisRateLimitStore(redisUrl, `t:pacing:${random()}:`)
    : new MemoryRateLimitStore();
});

/** Two replicas on this database and the one store; they take the events already committed. */
async function startReplicas(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    replicas.push(
      await createWebhooksService({ ...fx.runtime(), rateLimits: pacing }, { pollIntervalMs: 20 }),
    );
  }
}

afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  await pacing.close();
  receiver.stop();
  await fx.close();
});

/** How many requests the receiver got in each second of its clock, most first. */
function perSecond(arrivals: number[]): number[] {
  const counts = new Map<number, number>();
  for (const at of arrivals) {
    const second = Math.floor(at / 1000);
    counts.set(second, (counts.get(second) ?? 0) + 1);
  }
  return [...counts.values()].sort((a, b) => b - a);
}

describe("pacing across replicas", () => {
  test(`a ${RATE}/s endpoint gets at most ${RATE} requests a second from two replicas, and all of them`, async () => {
    const org = await fx.organization();
    const paced = await fx.endpoint(receiver.url("/paced"), ["story.submitted"], org, {
      rate_limit_per_second: RATE,
    });
    await fx.endpoint(receiver.url("/free"), ["story.submitted"], org);
    expect((await fx.endpointRow(paced.id)).rateLimitPerSecond).toBe(RATE);

    // The events are committed first, so the replicas' start (the reconciler's first pass fans
    // them out) is all the work there is: the receiver's count is not blurred by a busy test.
    const events = (await Promise.all(Array.from({ length: EVENTS }, () => fx.submitted(org)))).map(
      (submitted) => submitted.eventId,
    );
    const started = Date.now();
    await startReplicas();

    // The endpoint without a rate is not held back by its neighbour's.
    await eventually(() => receiver.at("/free").length === EVENTS, {
      message: "every event at the endpoint without a rate",
      timeoutMs: 15_000,
    });
    await eventually(() => receiver.at("/paced").length >= EVENTS, {
      message: "every event at the paced endpoint",
      timeoutMs: 30_000,
    });
    const arrivals = receiver.at("/paced").map((hit) => hit.at);
    expect(perSecond(arrivals)[0]).toBeLessThanOrEqual(RATE);
    // Without a rate the same events come faster than that: the count above could fail.
    expect(perSecond(receiver.at("/free").map((hit) => hit.at))[0]).toBeGreaterThan(RATE);
    // Paced for real: 30 requests at 5 a window span at least five windows.
    expect(Math.max(...arrivals) - started).toBeGreaterThanOrEqual(
      (EVENTS / RATE - 1) * PACING_WINDOW_MS - 100,
    );
    const received = receiver.at("/paced").map((hit) => hit.headers.get("webhook-id"));
    expect([...new Set(received)].sort()).toEqual([...events].sort());
    expect(received).toHaveLength(EVENTS);

    // Waiting for the rate is neither an attempt nor a failure.
    await eventually(
      async () => (await fx.deliveriesOf(paced.id)).every((row) => row.status === "delivered"),
      { message: "every paced delivery recorded", timeoutMs: 5_000 },
    );
    const rows = await fx.deliveriesOf(paced.id);
    expect(rows).toHaveLength(EVENTS);
    expect(rows.map((row) => row.attempts)).toEqual(rows.map(() => 1));
    expect(rows.every((row) => row.lastError === null)).toBe(true);
  }, 60_000);
});

describe("which claimed deliveries go", () => {
  const endpoint = (id: string, rate: number | null, status: "enabled" | "disabled" = "enabled") =>
    [id, { id, rateLimitPerSecond: rate, status } as EndpointRow] as const;
  const endpoints = new Map([
    endpoint("paced", 2),
    endpoint("free", null),
    endpoint("off", 1, "disabled"),
  ]);
  const delivery = (id: string, endpointId: string) => ({ id, endpointId }) as DeliveryRow;
  const batch = [
    delivery("p1", "paced"),
    delivery("f1", "free"),
    delivery("p2", "paced"),
    delivery("p3", "paced"),
    delivery("o1", "off"),
  ];

  test("over the rate waits, with how long; no rate and disabled endpoints never ask the store", async () => {
    const store = new MemoryRateLimitStore();
    const { go, waiting } = await paceDeliveries(store, batch, endpoints);
    expect(go.map((row) => row.id)).toEqual(["p1", "f1", "p2", "o1"]);
    expect(waiting.map(({ delivery }) => delivery.id)).toEqual(["p3"]);
    expect(waiting[0]!.waitMs).toBeGreaterThan(0);
    expect(waiting[0]!.waitMs).toBeLessThanOrEqual(PACING_WINDOW_MS);
  });

  test("a store that fails makes paced deliveries wait, never go over; the others go", async () => {
    const broken: RateLimitStore = {
      kind: "redis",
      hit: () => Promise.reject(new Error("connection refused")),
      peek: () => Promise.reject(new Error("connection refused")),
      reserve: () => Promise.reject(new Error("connection refused")),
      close: async () => {},
    };
    const { go, waiting } = await paceDeliveries(broken, batch, endpoints);
    expect(go.map((row) => row.id)).toEqual(["f1", "o1"]);
    expect(waiting.map(({ delivery, waitMs }) => [delivery.id, waitMs])).toEqual([
      ["p1", PACING_UNKNOWN_WAIT_MS],
      ["p2", PACING_UNKNOWN_WAIT_MS],
      ["p3", PACING_UNKNOWN_WAIT_MS],
    ]);
  });
});
