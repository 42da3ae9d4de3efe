import type { EventBus } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import { cmsConnections } from "@newsroom/shared/db/schema";
import { EVENT } from "@newsroom/shared/events";
import { and, eq, isNotNull } from "drizzle-orm";

/**
 * Publishes `cms_connection.failing` for each connection marked failing and not yet announced
 * (its `failing_announcement_id`, the event's id on every publish), then clears the mark. A
 * publish that fails leaves the mark for the next pass; the workspace drops a repeat by its id.
 */
export async function announceFailingCmsConnections(
  db: Db,
  bus: EventBus,
  only?: { connectionId: string },
): Promise<number> {
  const rows = await db
    .select()
    .from(cmsConnections)
    .where(
      and(
        isNotNull(cmsConnections.failingAnnouncementId),
        eq(cmsConnections.status, "failing"),
        only ? eq(cmsConnections.id, only.connectionId) : undefined,
      ),
    );
  for (const row of rows) {
    const id = row.failingAnnouncementId!;
    await bus.publish({
      id,
      type: EVENT.cmsConnectionFailing,
      created_at: (row.lastErrorAt ?? new Date()).toISOString(),
      data: {
        organization_id: row.organizationId,
        connection_id: row.id,
        kind: row.kind,
        url: row.url,
        failed_in_a_row: row.consecutiveFailures,
        last_error: row.lastError,
      },
    });
    await db
      .update(cmsConnections)
      .set({ failingAnnouncementId: null })
      .where(and(eq(cmsConnections.id, row.id), eq(cmsConnections.failingAnnouncementId, id)));
  }
  return rows.length;
}
