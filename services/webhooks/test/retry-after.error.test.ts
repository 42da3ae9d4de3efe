import { describe, expect, test } from "bun:test";
import { eventually } from "@newsroom/shared/testing/eventually";
import { MAX_RETRY_AFTER_MS, retryAfterOf } from "../src/delivery/retry-after.ts";
import { attemptsRecorded, deliveringWorld } from "./support/harness.ts";

const world = deliveringWorld();

/** One event to a receiver answering `status` with these headers; the delivery after attempt 1. */
async function firstAttempt(path: string, status: number, headers: Record<string, string>) {
  world.receiver.on(path, () => new Response("slow down", { status, headers }));
  const org = await world.fx.organization();
  const endpoint = await world.fx.endpoint(world.receiver.url(path), ["story.submitted"], org);
  const { eventId } = await world.fx.submitted(org);
  const delivery = await eventually(
    async () => {
      const row = await world.fx.delivery(endpoint.id, eventId);
      return attemptsRecorded(row) ? row : null;
    },
    { message: `the first attempt to ${path}` },
  );
  const [hit] = world.receiver.at(path);
  return { delivery, hitAt: hit!.at };
}

describe("receivers that push back", () => {
  test("a 429 with Retry-After: 120 moves the next attempt two minutes on, not the schedule's 50 ms", async () => {
    const { delivery, hitAt } = await firstAttempt("/busy-429", 429, { "retry-after": "120" });
    expect(delivery.status).toBe("pending");
    expect(delivery.lastStatusCode).toBe(429);
    const gap = delivery.nextAttemptAt!.getTime() - hitAt;
    expect(gap).toBeGreaterThan(119_000);
    expect(gap).toBeLessThan(122_000);
    await Bun.sleep(300);
    expect(world.receiver.at("/busy-429")).toHaveLength(1);
  });

  test("a 503 with Retry-After as an HTTP date is honoured too", async () => {
    const later = new Date(Date.now() + 300_000);
    const { delivery } = await firstAttempt("/busy-503", 503, {
      "retry-after": later.toUTCString(),
    });
    expect(Math.abs(delivery.nextAttemptAt!.getTime() - later.getTime())).toBeLessThan(1_500);
  });

  test("Retry-After is capped at six hours from now", async () => {
    const { delivery, hitAt } = await firstAttempt("/busy-day", 429, { "retry-after": "86400" });
    const gap = delivery.nextAttemptAt!.getTime() - hitAt;
    expect(gap).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS + 2_000);
    expect(gap).toBeGreaterThan(MAX_RETRY_AFTER_MS - 2_000);
  });

  test("a 500 with Retry-After keeps the schedule: all eight attempts, then failed", async () => {
    world.receiver.on(
      "/broken",
      () => new Response("no", { status: 500, headers: { "retry-after": "120" } }),
    );
    const org = await world.fx.organization();
    const endpoint = await world.fx.endpoint(
      world.receiver.url("/broken"),
      ["story.submitted"],
      org,
    );
    const { eventId } = await world.fx.submitted(org);
    const delivery = await eventually(
      async () => {
        const row = await world.fx.delivery(endpoint.id, eventId);
        return row?.status === "failed" ? row : null;
      },
      { message: "the delivery to fail" },
    );
    expect(delivery.attempts).toBe(8);
    expect(world.receiver.at("/broken")).toHaveLength(8);
  });
});

describe("reading Retry-After", () => {
  const now = new Date("2026-01-01T00:00:00Z");
  test("seconds, an HTTP date, and the later of the two with the schedule", () => {
    expect(retryAfterOf(429, "120", now)?.toISOString()).toBe("2026-01-01T00:02:00.000Z");
    expect(retryAfterOf(503, "Thu, 01 Jan 2026 00:10:00 GMT", now)?.toISOString()).toBe(
      "2026-01-01T00:10:00.000Z",
    );
  });
  test("other statuses, a missing or unreadable header, and a date in the past", () => {
    expect(retryAfterOf(500, "120", now)).toBeNull();
    expect(retryAfterOf(429, null, now)).toBeNull();
    expect(retryAfterOf(429, "soon", now)).toBeNull();
    expect(retryAfterOf(429, "-5", now)).toBeNull();
    expect(retryAfterOf(429, "Wed, 31 Dec 2025 00:00:00 GMT", now)).toEqual(now);
  });
});
