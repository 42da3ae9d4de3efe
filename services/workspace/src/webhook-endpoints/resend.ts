import type { Db } from "@newsroom/shared/db/index";
import { auditEvents, webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { ApiError, validationFailed } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import { and, eq, gte, inArray, max } from "drizzle-orm";
import { audit } from "../audit.ts";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "./model.ts";

/** How far back a recovery may reach. */
export const RECOVER_MAX_DAYS = 14;
const DAY_MS = 24 * 60 * 60 * 1000;

const d = webhookDeliveries;

/**
 * A new attempt series: pending and due now, `attempts` back to 0 (it counts the current series
 * only), the last answer and error cleared. The event id is kept, so the receiver sees the same
 * `webhook-id` and deduplicates.
 */
function newSeries(now: Date) {
  return {
    status: "pending" as const,
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: now,
    deliveredAt: null,
    lockedUntil: null,
  };
}

function requireEnabled(endpoint: WebhookEndpointRow): void {
  if (endpoint.status !== "enabled") {
    throw new ApiError("conflict", "The webhook endpoint is disabled: enable it first.");
  }
}

async function endpointOf(db: Db, organizationId: string, endpointId: string) {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(
      and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.id, endpointId)),
    );
  if (!row) throw new ApiError("not_found", "No such webhook endpoint.");
  return row;
}

/**
 * The organization and endpoint a delivery belongs to, or null: the one lookup by delivery id
 * alone, so that a caller can check the person's access to that organization first.
 */
export async function ownerOfWebhookDelivery(
  db: Db,
  id: string,
): Promise<{ organizationId: string; endpointId: string } | null> {
  if (!isUuid(id)) return null;
  const [row] = await db
    .select({ organizationId: d.organizationId, endpointId: d.endpointId })
    .from(d)
    .where(eq(d.id, id));
  return row ?? null;
}

/**
 * Sends one delivery again (failed or delivered; a pending one is already on its way: 409), as a
 * new attempt series with the same event id. Its endpoint must be enabled.
 */
export async function resendWebhookDelivery(
  db: Db,
  id: string,
  actor = "admin",
  now: Date = new Date(),
): Promise<WebhookDeliveryRow> {
  const owner = await ownerOfWebhookDelivery(db, id);
  if (!owner) throw new ApiError("not_found", "No such webhook delivery.");
  const { organizationId } = owner;
  const [delivery] = await db
    .select()
    .from(d)
    .where(and(eq(d.organizationId, organizationId), eq(d.id, id)));
  if (!delivery) throw new ApiError("not_found", "No such webhook delivery.");
  requireEnabled(await endpointOf(db, organizationId, delivery.endpointId));
  const [row] = await db
    .update(d)
    .set(newSeries(now))
    .where(
      and(
        eq(d.organizationId, organizationId),
        eq(d.id, id),
        inArray(d.status, ["failed", "delivered"]),
      ),
    )
    .returning();
  if (!row) throw new ApiError("conflict", "This delivery is pending: it is already being sent.");
  await audit(db, organizationId, "webhook_delivery.resent", id, actor);
  return row;
}

/** Checks a recovery's `since`: a date-time within the last 14 days. */
export function parseRecoverSince(value: string | undefined, now: Date): Date {
  const since = value ? new Date(value) : null;
  if (!since || Number.isNaN(since.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(value ?? "")) {
    throw validationFailed([
      { field: "since", reason: "invalid", message: "Give a date-time (ISO 8601)." },
    ]);
  }
  if (since.getTime() < now.getTime() - RECOVER_MAX_DAYS * DAY_MS) {
    throw validationFailed([
      {
        field: "since",
        reason: "too_old",
        message: `Recovery reaches back at most ${RECOVER_MAX_DAYS} days.`,
      },
    ]);
  }
  return since;
}

/**
 * Resends every failed delivery of an enabled endpoint created at or after `since` (at most 14
 * days back), each as a new attempt series with its original event id, in one statement.
 * Pressing twice does nothing new: deliveries already pending or delivered are not touched.
 * Returns how many were resent.
 */
export async function recoverWebhookEndpoint(
  db: Db,
  organizationId: string,
  endpointId: string,
  since: Date,
  actor = "admin",
  now: Date = new Date(),
): Promise<{ endpoint: WebhookEndpointRow; resent: number }> {
  const endpoint = await endpointOf(db, organizationId, endpointId);
  requireEnabled(endpoint);
  const rows = await db
    .update(d)
    .set(newSeries(now))
    .where(
      and(
        eq(d.organizationId, organizationId),
        eq(d.endpointId, endpointId),
        eq(d.status, "failed"),
        gte(d.createdAt, since),
      ),
    )
    .returning({ id: d.id });
  if (rows.length > 0) {
    await audit(db, organizationId, `webhook_endpoint.recovered:${rows.length}`, endpointId, actor);
  }
  return { endpoint, resent: rows.length };
}

/** When an endpoint was last disabled (its audit trail), the default start of a recovery. */
export async function lastDisabledAt(
  db: Db,
  organizationId: string,
  endpointId: string,
): Promise<Date | null> {
  const [row] = await db
    .select({ at: max(auditEvents.createdAt) })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.organizationId, organizationId),
        eq(auditEvents.subjectId, endpointId),
        eq(auditEvents.action, "webhook_endpoint.disabled"),
      ),
    );
  return row?.at ?? null;
}
