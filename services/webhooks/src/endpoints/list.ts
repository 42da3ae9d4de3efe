import type { Db } from "@newsroom/shared/db/index";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import { and, asc, count, desc, eq, gte, sql } from "drizzle-orm";
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from "./model.ts";

/** The organization's webhook endpoints, oldest first. */
export async function listWebhookEndpoints(
  db: Db,
  organizationId: string,
): Promise<WebhookEndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, organizationId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/** One endpoint of the organization; another organization's answers like a missing one. */
export async function findWebhookEndpoint(
  db: Db,
  organizationId: string,
  id: string,
): Promise<WebhookEndpointRow> {
  if (!isUuid(id)) throw new ApiError("not_found", "No such webhook endpoint.");
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.id, id)));
  if (!row) throw new ApiError("not_found", "No such webhook endpoint.");
  return row;
}

/** The endpoint's latest deliveries, newest first. */
export async function listEndpointDeliveries(
  db: Db,
  organizationId: string,
  endpointId: string,
  limit = 100,
): Promise<WebhookDeliveryRow[]> {
  const endpoint = await findWebhookEndpoint(db, organizationId, endpointId);
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.organizationId, organizationId),
        eq(webhookDeliveries.endpointId, endpoint.id),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
}

/** One delivery of the organization; another organization's answers like a missing one. */
export async function findWebhookDelivery(
  db: Db,
  organizationId: string,
  id: string,
): Promise<WebhookDeliveryRow> {
  if (!isUuid(id)) throw new ApiError("not_found", "No such webhook delivery.");
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.id, id)));
  if (!row) throw new ApiError("not_found", "No such webhook delivery.");
  return row;
}

/** A delivery's attempts of the last 30 days (each resend starts a new series), newest first. */
export async function listDeliveryAttempts(
  db: Db,
  organizationId: string,
  deliveryId: string,
): Promise<WebhookAttemptRow[]> {
  const delivery = await findWebhookDelivery(db, organizationId, deliveryId);
  return db
    .select()
    .from(webhookAttempts)
    .where(
      and(
        eq(webhookAttempts.organizationId, organizationId),
        eq(webhookAttempts.deliveryId, delivery.id),
      ),
    )
    .orderBy(desc(webhookAttempts.at), desc(webhookAttempts.attempt));
}

/** An endpoint's deliveries made since `since`, counted per hour (since the epoch) and status. */
export async function deliveriesPerHour(
  db: Db,
  organizationId: string,
  endpointId: string,
  since: Date,
): Promise<{ hour: number; status: WebhookDeliveryRow["status"]; count: number }[]> {
  const endpoint = await findWebhookEndpoint(db, organizationId, endpointId);
  const hour = sql<string>`floor(extract(epoch from ${webhookDeliveries.createdAt}) / 3600)`;
  const rows = await db
    .select({ hour, status: webhookDeliveries.status, count: count() })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.organizationId, organizationId),
        eq(webhookDeliveries.endpointId, endpoint.id),
        gte(webhookDeliveries.createdAt, since),
      ),
    )
    .groupBy(hour, webhookDeliveries.status);
  return rows.map((row) => ({ hour: Number(row.hour), status: row.status, count: row.count }));
}
