import type { Db, Queryable } from "@newsroom/shared/db/index";
import { auditEvents, webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { and, asc, count, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import { integerArray, timestampArray, uuidArray } from "../sql-arrays.ts";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** What `last_error` says when a delivery stops because its endpoint is disabled. */
export const ENDPOINT_DISABLED_ERROR = "endpoint disabled";

const d = webhookDeliveries;
const e = webhookEndpoints;

const unclaimed = (now: Date) => or(isNull(d.lockedUntil), lt(d.lockedUntil, now));

/**
 * Claims up to `limit` pending deliveries that are due, for `leaseMs`: the rows are picked with
 * `FOR UPDATE SKIP LOCKED` and their `locked_until` set in the same statement, so replicas never
 * claim the same row, and a crashed worker's claim lapses. Work across every organization.
 */
export async function claimDueDeliveries(
  db: Db,
  limit: number,
  leaseMs: number,
  now: Date = new Date(),
): Promise<DeliveryRow[]> {
  if (limit <= 0) return [];
  const due = db
    .select({ id: d.id })
    .from(d)
    .where(and(eq(d.status, "pending"), lte(d.nextAttemptAt, now), unclaimed(now)))
    .orderBy(asc(d.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return db
    .update(d)
    .set({ lockedUntil: new Date(now.getTime() + leaseMs) })
    .where(inArray(d.id, due))
    .returning();
}

/** Gives claims back (a worker stopping before it started them). */
export async function releaseClaims(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(d)
    .set({ lockedUntil: null })
    .where(sql`${d.id} = any(${uuidArray(ids)})`);
}

/** The endpoints of claimed deliveries, by id. */
export async function endpointsByIds(
  db: Queryable,
  ids: string[],
): Promise<Map<string, EndpointRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select()
    .from(e)
    .where(sql`${e.id} = any(${uuidArray(ids)})`);
  return new Map(rows.map((row) => [row.id, row]));
}

export async function findEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<EndpointRow | null> {
  const [row] = await db
    .select()
    .from(e)
    .where(and(eq(e.organizationId, organizationId), eq(e.id, endpointId)));
  return row ?? null;
}

export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
}

export interface DeliveredAttempt {
  delivery: Pick<DeliveryRow, "id" | "organizationId" | "endpointId">;
  /** The 2xx the receiver answered. */
  statusCode: number;
  /** When it answered. */
  at: Date;
}

/**
 * 2xx answers: each delivery still pending is delivered, and its endpoint's run of failed
 * deliveries ends. One statement for any number of attempts, so a busy worker records a whole
 * batch at once; each row is matched on its organization and id.
 */
export async function recordDeliveredBatch(db: Db, attempts: DeliveredAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  // One statement: the deliveries, then the endpoints of those that were still pending.
  await db.execute(sql`
    with delivered as (
      update webhook_deliveries as d
      set status = 'delivered', attempts = d.attempts + 1, last_status_code = v.status_code,
          last_error = null, next_attempt_at = null, delivered_at = v.delivered_at,
          locked_until = null
      from unnest(
        ${uuidArray(attempts.map((attempt) => attempt.delivery.organizationId))},
        ${uuidArray(attempts.map((attempt) => attempt.delivery.id))},
        ${integerArray(attempts.map((attempt) => attempt.statusCode))},
        ${timestampArray(attempts.map((attempt) => attempt.at))}
      ) as v(organization_id, id, status_code, delivered_at)
      where d.organization_id = v.organization_id and d.id = v.id and d.status = 'pending'
      returning d.organization_id, d.endpoint_id
    )
    update webhook_endpoints as e set consecutive_failures = 0
    from (select distinct organization_id, endpoint_id from delivered) as r
    where e.organization_id = r.organization_id and e.id = r.endpoint_id
      and e.consecutive_failures > 0`);
}

/**
 * A failed attempt. With retries left the delivery stays pending until `nextAttemptAt`;
 * otherwise it is failed, and the endpoint's run of failed deliveries grows: at
 * `disableAfter` the endpoint is disabled (reason `failing`) and its pending deliveries stop.
 * Returns the delivery's new status and whether this disabled the endpoint.
 */
export async function recordFailedAttempt(
  db: Db,
  delivery: DeliveryRow,
  attempt: AttemptRecord,
  options: { maxAttempts: number; nextAttemptAt: (attempts: number) => Date; disableAfter: number },
  now: Date = new Date(),
): Promise<{ status: "pending" | "failed"; endpointDisabled: boolean }> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ attempts: d.attempts, status: d.status })
      .from(d)
      .where(and(eq(d.organizationId, delivery.organizationId), eq(d.id, delivery.id)))
      .for("update");
    if (current?.status !== "pending") {
      return { status: "failed" as const, endpointDisabled: false };
    }
    const attempts = current.attempts + 1;
    const final = attempts >= options.maxAttempts;
    await tx
      .update(d)
      .set({
        status: final ? "failed" : "pending",
        attempts,
        lastStatusCode: attempt.statusCode,
        lastError: attempt.error,
        nextAttemptAt: final ? null : options.nextAttemptAt(attempts),
        lockedUntil: null,
      })
      .where(eq(d.id, delivery.id));
    if (!final) return { status: "pending" as const, endpointDisabled: false };
    const [endpoint] = await tx
      .update(e)
      .set({ consecutiveFailures: sql`${e.consecutiveFailures} + 1` })
      .where(and(eq(e.organizationId, delivery.organizationId), eq(e.id, delivery.endpointId)))
      .returning({ failures: e.consecutiveFailures, status: e.status });
    if (endpoint?.status !== "enabled" || endpoint.failures < options.disableAfter) {
      return { status: "failed" as const, endpointDisabled: false };
    }
    await disableFailingEndpoint(tx, delivery.organizationId, delivery.endpointId, now);
    return { status: "failed" as const, endpointDisabled: true };
  });
}

async function disableFailingEndpoint(
  tx: Queryable,
  organizationId: string,
  endpointId: string,
  now: Date,
): Promise<void> {
  await tx
    .update(e)
    .set({ status: "disabled", disabledReason: "failing", updatedAt: now })
    .where(and(eq(e.organizationId, organizationId), eq(e.id, endpointId)));
  await tx.insert(auditEvents).values({
    id: newId(),
    organizationId,
    action: "webhook_endpoint.disabled",
    subjectId: endpointId,
    actor: "webhooks",
  });
  await stopPendingDeliveries(tx, organizationId, [endpointId], now);
}

/**
 * Pending deliveries of these endpoints become failed (`last_error` "endpoint disabled"), except
 * those a worker holds right now: that attempt is recorded when it ends, and the next claim
 * stops the delivery.
 */
export async function stopPendingDeliveries(
  db: Queryable,
  organizationId: string,
  endpointIds: string[],
  now: Date = new Date(),
): Promise<number> {
  if (endpointIds.length === 0) return 0;
  const rows = await db
    .update(d)
    .set({
      status: "failed",
      lastError: ENDPOINT_DISABLED_ERROR,
      nextAttemptAt: null,
      lockedUntil: null,
    })
    .where(
      and(
        eq(d.organizationId, organizationId),
        inArray(d.endpointId, endpointIds),
        eq(d.status, "pending"),
        unclaimed(now),
      ),
    )
    .returning({ id: d.id });
  return rows.length;
}

/** Stops the pending deliveries of every disabled endpoint, in every organization. */
export async function stopDeliveriesOfDisabledEndpoints(
  db: Db,
  now: Date = new Date(),
): Promise<number> {
  const disabled = db.select({ id: e.id }).from(e).where(eq(e.status, "disabled"));
  const rows = await db
    .update(d)
    .set({
      status: "failed",
      lastError: ENDPOINT_DISABLED_ERROR,
      nextAttemptAt: null,
      lockedUntil: null,
    })
    .where(and(eq(d.status, "pending"), inArray(d.endpointId, disabled), unclaimed(now)))
    .returning({ id: d.id });
  return rows.length;
}

/** A claimed delivery whose endpoint turned out to be disabled: it stops, unsent. */
export async function stopClaimedDelivery(db: Db, delivery: DeliveryRow): Promise<void> {
  await db
    .update(d)
    .set({
      status: "failed",
      lastError: ENDPOINT_DISABLED_ERROR,
      nextAttemptAt: null,
      lockedUntil: null,
    })
    .where(
      and(
        eq(d.organizationId, delivery.organizationId),
        eq(d.id, delivery.id),
        eq(d.status, "pending"),
      ),
    );
}

/** Deliveries waiting for an attempt, for the `webhook_deliveries_pending` gauge. */
export async function countPendingDeliveries(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
  return row?.n ?? 0;
}
