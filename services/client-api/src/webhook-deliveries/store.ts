import type { Queryable } from "@newsroom/shared/db/index";
import { webhookDeliveries } from "@newsroom/shared/db/schema";
import { webhookDeliveryRecordColumns } from "@newsroom/shared/webhook-records";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { microsToTimestamp, type Position } from "../pagination/cursor.ts";

const createdMicros = sql<string>`(extract(epoch from ${webhookDeliveries.createdAt}) * 1000000)::bigint::text`;

/** A page of the organization's deliveries, newest first, keyset on (created_at, id). */
export async function listDeliveryRows(
  db: Queryable,
  organizationId: string,
  options: { endpointId?: string; after?: Position | null; limit: number },
) {
  const conditions: SQL[] = [eq(webhookDeliveries.organizationId, organizationId)];
  if (options.endpointId) conditions.push(eq(webhookDeliveries.endpointId, options.endpointId));
  if (options.after) {
    const at = microsToTimestamp(options.after.micros);
    conditions.push(
      sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries.id}) < (${at}::timestamptz, ${options.after.id}::uuid)`,
    );
  }
  return db
    .select({ ...webhookDeliveryRecordColumns, micros: createdMicros })
    .from(webhookDeliveries)
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(options.limit + 1);
}
