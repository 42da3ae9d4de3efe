import type { Db } from "@newsroom/shared/db/index";
import { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import { and, asc, desc, eq } from "drizzle-orm";
import { findOrganization } from "../resolve.ts";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "./model.ts";

/** The organization's webhook endpoints, oldest first. */
export async function listWebhookEndpoints(
  db: Db,
  orgIdOrSlug: string,
): Promise<WebhookEndpointRow[]> {
  const org = await findOrganization(db, orgIdOrSlug);
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, org.id))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/** The endpoint's latest deliveries, newest first. */
export async function listEndpointDeliveries(
  db: Db,
  endpointId: string,
  limit = 100,
): Promise<WebhookDeliveryRow[]> {
  const endpoint = await findEndpoint(db, endpointId);
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.organizationId, endpoint.organizationId),
        eq(webhookDeliveries.endpointId, endpoint.id),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
}

async function findEndpoint(db: Db, id: string): Promise<WebhookEndpointRow> {
  if (!isUuid(id)) throw new ApiError("not_found", "No such webhook endpoint.");
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  if (!row) throw new ApiError("not_found", "No such webhook endpoint.");
  return row;
}
