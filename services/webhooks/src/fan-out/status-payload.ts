import type { Queryable } from "@newsroom/shared/db/index";
import { webhookStatusEvents } from "@newsroom/shared/db/schema";
import { uuidArray } from "@newsroom/shared/db/sql-arrays";
import type { StatusIncidentUpdatedEventOut } from "@newsroom/shared/records";
import { sql } from "drizzle-orm";

/**
 * The bodies of the status page's events, by event id, as the bus carried them:
 * `{ id, object: "event", type, created_at, timestamp, data: { incident, update } }`. The same
 * for every endpoint and every attempt (the status page is public: no organization's data).
 */
export async function statusEventBodies(
  db: Queryable,
  deliveries: { eventId: string }[],
): Promise<Map<string, string>> {
  const bodies = new Map<string, string>();
  if (deliveries.length === 0) return bodies;
  const rows = await db
    .select()
    .from(webhookStatusEvents)
    .where(
      sql`${webhookStatusEvents.id} = any(${uuidArray([...new Set(deliveries.map((d) => d.eventId))])})`,
    );
  for (const row of rows) {
    const at = row.createdAt.toISOString();
    const body = {
      id: row.id,
      object: "event",
      type: row.type,
      created_at: at,
      timestamp: at,
      data: row.data,
    } as StatusIncidentUpdatedEventOut;
    bodies.set(row.id, JSON.stringify(body));
  }
  return bodies;
}
