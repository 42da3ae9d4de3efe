import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookAlerts, webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { eq } from "drizzle-orm";
import {
  attemptsForPercent,
  disableThresholdAttempts,
  percentReached,
} from "../src/alerts/thresholds.ts";
import { type DeliveryRow, recordFailedAttempt } from "../src/delivery/store.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

/**
 * The alerts' record under concurrent recording: many failed attempts of one endpoint recorded
 * at once (as several workers and replicas do; on PostgreSQL when DATABASE_URL is set) raise
 * each threshold exactly once, and fan each alert out once to the organization's subscribed
 * endpoint.
 */
describe("webhook alerts under concurrent recording", () => {
  let fx: Fixture;

  beforeAll(async () => {
    fx = await webhooksFixture();
  });
  afterAll(async () => {
    await fx.close();
  });

  test("the thresholds: 50, 70 and 90% of three deliveries' attempts, rounded up", () => {
    const threshold = disableThresholdAttempts(3, 8);
    expect(threshold).toBe(24);
    expect([50, 70, 90].map((percent) => attemptsForPercent(percent, threshold))).toEqual([
      12, 17, 22,
    ]);
    expect([11, 12, 16, 17, 21, 22, 30].map((n) => percentReached(n, threshold))).toEqual([
      0, 50, 50, 70, 70, 90, 90,
    ]);
    // A short schedule: 3 attempts a delivery, 9 in a row disable; 90% is the ninth.
    expect([4, 5, 7, 9].map((n) => percentReached(n, disableThresholdAttempts(3, 3)))).toEqual([
      0, 50, 70, 90,
    ]);
  });

  /** A pending delivery whose first attempt is open, as a worker holds it. */
  async function openDelivery(endpointId: string): Promise<DeliveryRow> {
    const [row] = await fx.db
      .insert(webhookDeliveries)
      .values({
        id: newId(),
        organizationId: fx.orgId,
        endpointId,
        eventId: newId(),
        eventType: "story.published",
        eventCreatedAt: new Date(),
        attempts: 1,
        nextAttemptAt: new Date(),
        lockedUntil: new Date(Date.now() + 60_000),
      })
      .returning();
    return row!;
  }

  test("30 failed attempts recorded at once: each threshold once, each alert fanned out once", async () => {
    const failing = await fx.endpoint("http://127.0.0.1:9/down", ["story.published"]);
    const pager = await fx.endpoint("http://127.0.0.1:9/pager", ["webhook_endpoint.failing"]);
    const deliveries = await Promise.all(
      Array.from({ length: 30 }, () => openDelivery(failing.id)),
    );
    const outcomes = await Promise.all(
      deliveries.map((delivery) =>
        recordFailedAttempt(
          fx.db,
          delivery,
          { statusCode: 500, error: "receiver answered 500", durationMs: 3, responseBody: null },
          { maxAttempts: 8, nextAttemptAt: () => new Date(Date.now() + 60_000), disableAfter: 3 },
        ),
      ),
    );
    expect(outcomes.every((outcome) => outcome.status === "pending")).toBe(true);
    expect(outcomes.reduce((sum, outcome) => sum + outcome.alerts, 0)).toBe(3);

    const endpoint = await fx.endpointRow(failing.id);
    expect(endpoint.failedAttemptsInARow).toBe(30);
    expect(endpoint.failureAlertPercent).toBe(90);
    expect(endpoint.failingSince).not.toBeNull();
    const alerts = await fx.db
      .select()
      .from(webhookAlerts)
      .where(eq(webhookAlerts.endpointId, failing.id));
    expect(alerts.map((alert) => [alert.type, alert.threshold]).sort()).toEqual([
      ["webhook_endpoint.failing", 50],
      ["webhook_endpoint.failing", 70],
      ["webhook_endpoint.failing", 90],
    ]);
    expect(alerts.map((alert) => alert.data.failed_attempts_in_a_row).sort()).toEqual([12, 17, 22]);
    expect(new Set(alerts.map((alert) => alert.episode.getTime())).size).toBe(1);
    expect(alerts.every((alert) => alert.announcedAt === null)).toBe(true);

    const fannedOut = await fx.deliveriesOf(pager.id);
    expect(fannedOut.map((delivery) => delivery.eventId).sort()).toEqual(
      alerts.map((alert) => alert.id).sort(),
    );
    expect(fannedOut.every((delivery) => delivery.eventType === "webhook_endpoint.failing")).toBe(
      true,
    );
    // None to the failing endpoint itself, though it has deliveries of its own.
    const own = await fx.deliveriesOf(failing.id);
    expect(own.every((delivery) => delivery.eventType === "story.published")).toBe(true);
  });
});
