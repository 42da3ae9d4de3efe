import { describe, expect, test } from "bun:test";
import { webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { metricsPage } from "@newsroom/shared/metrics";
import { eventually } from "@newsroom/shared/testing/eventually";
import { readDeliveryQueue } from "../src/delivery/store.ts";
import { deliveringWorld } from "./support/harness.ts";

const world = deliveringWorld();

/** The value of the sample whose line starts with `series` (name and labels), or 0. */
async function sample(series: string): Promise<number> {
  const line = (await metricsPage("prometheus"))
    .split("\n")
    .find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("webhook metrics", () => {
  test("a delivery: in flight by endpoint while its request runs, then counted with its time from the transition", async () => {
    let release = () => {};
    const answered = new Promise<void>((resolve) => {
      release = resolve;
    });
    world.receiver.on("/slow", async () => {
      await answered;
      return new Response("ok", { status: 200 });
    });
    const delivered = await sample('webhook_deliveries_total{outcome="delivered"}');
    const timed = await sample("webhook_delivery_latency_seconds_count");
    const endpoint = await world.fx.endpoint(world.receiver.url("/slow"), ["story.submitted"]);
    const { eventId } = await world.fx.submitted();
    const inFlight = `webhook_attempts_in_flight{endpoint_id="${endpoint.id}"}`;
    await eventually(async () => (await sample(inFlight)) === 1, {
      message: "the attempt in flight",
    });
    release();
    const row = await eventually(
      async () => {
        const found = await world.fx.delivery(endpoint.id, eventId);
        return found?.status === "delivered" ? found : null;
      },
      { message: "the delivery" },
    );
    expect(await sample('webhook_deliveries_total{outcome="delivered"}')).toBe(delivered + 1);
    expect(await sample("webhook_delivery_latency_seconds_count")).toBe(timed + 1);
    const page = await metricsPage("prometheus");
    expect(page).not.toContain(inFlight);
    // Counted from the transition, which came before the answer.
    const elapsed = (row.deliveredAt!.getTime() - row.eventCreatedAt.getTime()) / 1000;
    expect(await sample("webhook_delivery_latency_seconds_sum")).toBeGreaterThanOrEqual(
      elapsed - 0.05,
    );
  });

  test("a 410 Gone disables the endpoint: counted under reason gone, and the delivery as failed", async () => {
    world.receiver.on("/gone", () => new Response("gone", { status: 410 }));
    const gone = await sample('webhook_endpoint_disablements_total{reason="gone"}');
    const failed = await sample('webhook_deliveries_total{outcome="failed"}');
    const endpoint = await world.fx.endpoint(world.receiver.url("/gone"), ["story.submitted"]);
    await world.fx.submitted();
    await eventually(async () => (await world.fx.endpointRow(endpoint.id)).status === "disabled", {
      message: "the endpoint disabled",
    });
    await eventually(
      async () => (await sample('webhook_endpoint_disablements_total{reason="gone"}')) === gone + 1,
      { message: "the disablement counted" },
    );
    expect(await sample('webhook_deliveries_total{outcome="failed"}')).toBe(failed + 1);
  });

  test("the queue lag counts due deliveries no worker holds, and the oldest one's wait", async () => {
    const endpoint = await world.fx.endpoint(world.receiver.url("/later"), ["story.submitted"]);
    // Due an hour from now (no worker claims them today); read as if two hours had passed.
    const now = Date.now();
    const later = (minutes: number) => new Date(now + minutes * 60_000);
    const row = (nextAttemptAt: Date, lockedUntil: Date | null = null) => ({
      id: newId(),
      organizationId: world.fx.orgId,
      endpointId: endpoint.id,
      eventId: newId(),
      eventType: "story.submitted" as const,
      eventCreatedAt: new Date(now),
      nextAttemptAt,
      lockedUntil,
    });
    await world.fx.db.insert(webhookDeliveries).values([
      row(later(60)),
      row(later(90)),
      // Claimed by a worker: not lag.
      row(later(30), later(180)),
      // Not due yet at the reading.
      row(later(150)),
    ]);
    const reading = await readDeliveryQueue(world.fx.db, later(120));
    expect(reading.due).toBe(2);
    expect(reading.oldestDueSeconds).toBeCloseTo(3600, 0);
    // The service reads it at each scrape.
    expect(await metricsPage("prometheus")).toMatch(/^webhook_queue_due \d+$/m);
  });
});
