import type { Db } from "@newsroom/shared/db/index";
import { webhookDeliveries } from "@newsroom/shared/db/schema";
import { ApiError, validationFailed } from "@newsroom/shared/errors";
import { RECOVER_MAX_DAYS } from "@newsroom/shared/webhook-endpoint-commands";
import { and, eq, gte, inArray } from "drizzle-orm";
import { findWebhookDelivery, findWebhookEndpoint } from "./list.ts";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "./model.ts";

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

/**
 * Sends one delivery again (failed or delivered; a pending one is already on its way: 409), as a
 * new attempt series with the same event id. Its endpoint must be enabled.
 */
export async function resendWebhookDelivery(
  db: Db,
  organizationId: string,
  id: string,
  now: Date = new Date(),
): Promise<WebhookDeliveryRow> {
  const delivery = await findWebhookDelivery(db, organizationId, id);
  requireEnabled(await findWebhookEndpoint(db, organizationId, delivery.endpointId));
  const [row] = await db
    .update(d)
    .set(newSeries(now))
    .where(
      and(
        eq(d.organizationId, organizationId),
        eq(d.id, delivery.id),
        inArray(d.status, ["failed", "delivered"]),
      ),
    )
    .returning();
  if (!row) throw new ApiError("conflict", "This delivery is pending: it is already being sent.");
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
  now: Date = new Date(),
): Promise<{ endpoint: WebhookEndpointRow; resent: number }> {
  const endpoint = await findWebhookEndpoint(db, organizationId, endpointId);
  requireEnabled(endpoint);
  const rows = await db
    .update(d)
    .set(newSeries(now))
    .where(
      and(
        eq(d.organizationId, organizationId),
        eq(d.endpointId, endpoint.id),
        eq(d.status, "failed"),
        gte(d.createdAt, since),
      ),
    )
    .returning({ id: d.id });
  return { endpoint, resent: rows.length };
}
