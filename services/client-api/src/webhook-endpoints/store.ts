import type { Queryable } from "@newsroom/shared/db/index";
import { webhookEndpoints } from "@newsroom/shared/db/schema";
import { webhookEndpointRecordColumns } from "@newsroom/shared/webhook-records";
import { desc, eq } from "drizzle-orm";

/** Every endpoint of the organization, enabled or not, newest first (at most 10 exist). */
export async function listEndpointRows(db: Queryable, organizationId: string) {
  return db
    .select(webhookEndpointRecordColumns)
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, organizationId))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
}
