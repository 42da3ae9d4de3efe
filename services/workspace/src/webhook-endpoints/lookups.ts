import type { Db } from "@newsroom/shared/db/index";
import { auditEvents, webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { isUuid } from "@newsroom/shared/ids";
import { and, eq, max } from "drizzle-orm";

/**
 * The organization an endpoint belongs to, or null: the workspace's paths name an endpoint by its
 * id alone, so it reads the owner first (a read of the webhooks service's table) to check the
 * person's access and to call the webhooks service with the organization.
 */
export async function organizationOfWebhookEndpoint(db: Db, id: string): Promise<string | null> {
  if (!isUuid(id)) return null;
  const [row] = await db
    .select({ organizationId: webhookEndpoints.organizationId })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, id));
  return row?.organizationId ?? null;
}

/** The organization and endpoint a delivery belongs to, or null (as for an endpoint). */
export async function ownerOfWebhookDelivery(
  db: Db,
  id: string,
): Promise<{ organizationId: string; endpointId: string } | null> {
  if (!isUuid(id)) return null;
  const [row] = await db
    .select({
      organizationId: webhookDeliveries.organizationId,
      endpointId: webhookDeliveries.endpointId,
    })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, id));
  return row ?? null;
}

/** When an endpoint was last disabled (the audit trail), the default start of a recovery. */
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
