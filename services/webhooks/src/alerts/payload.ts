import type { Queryable } from "@newsroom/shared/db/index";
import { webhookAlerts } from "@newsroom/shared/db/schema";
import { uuidArray } from "@newsroom/shared/db/sql-arrays";
import { sql } from "drizzle-orm";

/**
 * The bodies of operational events (deliveries of an alert to an organization's other
 * endpoints), by event id: `{ id, object, type, created_at, data }` with the alert's data, as
 * written when it was raised. Only alerts of the delivery's own organization.
 */
export async function alertEventBodies(
  db: Queryable,
  deliveries: { organizationId: string; eventId: string }[],
): Promise<Map<string, string>> {
  const bodies = new Map<string, string>();
  if (deliveries.length === 0) return bodies;
  const rows = await db
    .select()
    .from(webhookAlerts)
    .where(
      sql`${webhookAlerts.id} = any(${uuidArray([...new Set(deliveries.map((d) => d.eventId))])})`,
    );
  const organizationOf = new Map(deliveries.map((d) => [d.eventId, d.organizationId]));
  for (const alert of rows) {
    if (organizationOf.get(alert.id) !== alert.organizationId) continue;
    bodies.set(
      alert.id,
      JSON.stringify({
        id: alert.id,
        object: "event",
        type: alert.type,
        created_at: alert.createdAt.toISOString(),
        data: alert.data,
      }),
    );
  }
  return bodies;
}
