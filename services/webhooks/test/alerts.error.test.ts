import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookAlerts, webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { eq } from "drizzle-orm";
import {
  attemptsForPercent,
  disableThresholdAttempts,
  percentReached,
} from "../src/alerts/thresholds.ts";
import {
  type DeliveryRow,
  openAttempts,
  recordDeliveredBatch,
  recordFailedAttempt,
} from "../src/delivery/store.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

/**
 * The alerts' record under concurrent recording: many failed attempts of one endpoint recorded
 * at once (as several workers and replicas do; on PostgreSQL when DATABASE_URL is set) raise
 * each threshold exactly once, and fan each alert out once to the organization's subscribed
 * endpoint; a failed attempt sent before a 2xx that was recorded first belongs to the run that
 * 2xx ended.
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
    const row = await fx.pendingDelivery(endpointId, {
      lockedUntil: new Date(Date.now() + 60_000),
    });
    await openAttempts(fx.db, [row]);
    return row;
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

  const failure = {
    statusCode: 500,
    error: "receiver answered 500",
    durationMs: 3,
    responseBody: null,
  };
  const options = {
    maxAttempts: 8,
    nextAttemptAt: () => new Date(Date.now() + 60_000),
    disableAfter: 3,
  };

  /** A claimed delivery with `attempts` made so far, its next attempt not opened yet. */
  async function claimedDelivery(endpointId: string, attempts: number): Promise<DeliveryRow> {
    const [row] = await fx.db
      .insert(webhookDeliveries)
      .values({
        id: newId(),
        organizationId: fx.orgId,
        endpointId,
        eventId: newId(),
        eventType: "story.published",
        eventCreatedAt: new Date(),
        attempts,
        nextAttemptAt: new Date(),
        lockedUntil: new Date(Date.now() + 60_000),
      })
      .returning();
    return row!;
  }

  test("a failure sent before a 2xx recorded first: the run that 2xx ended stays ended", async () => {
    const endpoint = await fx.endpoint("http://127.0.0.1:9/flaky", ["story.published"]);
    const pager = await fx.endpoint("http://127.0.0.1:9/pager", ["webhook_delivery.exhausted"]);
    // Two deliveries in flight at once: the last attempt of one is sent first and fails; the
    // other's, sent after it, is answered 200 and recorded before the failure is.
    const lastTry = await claimedDelivery(endpoint.id, 7);
    const other = await claimedDelivery(endpoint.id, 2);
    const sent = Date.now() - 1_000;
    await openAttempts(fx.db, [lastTry], new Date(sent));
    await openAttempts(fx.db, [other], new Date(sent + 100));
    const answered = new Date(sent + 200);
    await recordDeliveredBatch(fx.db, [
      { delivery: other, statusCode: 200, at: answered, durationMs: 4, responseBody: null },
    ]);
    const outcome = await recordFailedAttempt(fx.db, lastTry, failure, options);

    // The delivery itself failed for good; the endpoint's runs, its disabling and its alerts
    // are not reopened by it.
    expect(outcome).toEqual({ status: "failed", endpointDisabled: false, alerts: 0 });
    const [failed] = (await fx.deliveriesOf(endpoint.id)).filter((row) => row.id === lastTry.id);
    expect(failed).toMatchObject({ status: "failed", attempts: 8, lastStatusCode: 500 });
    let row = await fx.endpointRow(endpoint.id);
    expect(row).toMatchObject({
      status: "enabled",
      consecutiveFailures: 0,
      failedAttemptsInARow: 0,
      failingSince: null,
      failureAlertPercent: 0,
      lastSuccessAt: answered,
    });
    const alertsOf = () =>
      fx.db.select().from(webhookAlerts).where(eq(webhookAlerts.endpointId, endpoint.id));
    expect(await alertsOf()).toHaveLength(0);
    expect(await fx.deliveriesOf(pager.id)).toHaveLength(0);

    // A failure sent after that 2xx starts a new run, and its last attempt is an exhaustion.
    const later = await claimedDelivery(endpoint.id, 7);
    await openAttempts(fx.db, [later], new Date(answered.getTime() + 1));
    const next = await recordFailedAttempt(fx.db, later, failure, options);
    expect(next).toEqual({ status: "failed", endpointDisabled: false, alerts: 1 });
    row = await fx.endpointRow(endpoint.id);
    expect(row.consecutiveFailures).toBe(1);
    expect(row.failedAttemptsInARow).toBe(1);
    expect(row.failingSince).not.toBeNull();
    expect((await alertsOf()).map((alert) => alert.type)).toEqual(["webhook_delivery.exhausted"]);
    expect(await fx.deliveriesOf(pager.id)).toHaveLength(1);
  });
});
