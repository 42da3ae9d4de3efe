import type { Db } from "@newsroom/shared/db/index";
import { webhookAttempts, webhookDeliveries } from "@newsroom/shared/db/schema";
import { and, desc, eq } from "drizzle-orm";
import type { WebhookDeliveryRow } from "./model.ts";

export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

/** One delivery of the organization, or null. */
export async function findDelivery(
  db: Db,
  organizationId: string,
  id: string,
): Promise<WebhookDeliveryRow | null> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.id, id)));
  return row ?? null;
}

/** A delivery's attempts of the last 30 days (each resend starts a new series), newest first. */
export async function listDeliveryAttempts(
  db: Db,
  organizationId: string,
  deliveryId: string,
): Promise<WebhookAttemptRow[]> {
  return db
    .select()
    .from(webhookAttempts)
    .where(
      and(
        eq(webhookAttempts.organizationId, organizationId),
        eq(webhookAttempts.deliveryId, deliveryId),
      ),
    )
    .orderBy(desc(webhookAttempts.at), desc(webhookAttempts.attempt));
}
