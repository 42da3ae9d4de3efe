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
  for (let i = 0; i < 2; i++) {
    replicas.push(
      await createWebhooksService({ ...fx.runtime(), rateLimits: pacing }, { pollIntervalMs: 20 }),
    );
  }
});

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
    const free = await fx.endpoint(receiver.url("/free"), ["story.submitted"], org);
    expect((await fx.endpointRow(paced.id)).rateLimitPerSecond).toBe(RATE);

    const started = Date.now();
    const events = (await Promise.all(Array.from({ length: EVENTS }, () => fx.submitted(org)))).map(
      (submitted) => submitted.eventId,
    );

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
    // Paced for real: 30 requests at 5 a second span at least five seconds.
    expect(Math.max(...arrivals) - started).toBeGreaterThanOrEqual(
      (EVENTS / RATE - 1) * 1000 - 100,
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
