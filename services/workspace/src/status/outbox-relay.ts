import type { EventBus } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import { statusOutboxEvents } from "@newsroom/shared/db/schema";
import type { BusEvent } from "@newsroom/shared/events";
import { contextFromTraceParent, withParent } from "@newsroom/shared/tracing/index";
import { and, asc, inArray, isNull, min } from "drizzle-orm";

export const STATUS_RELAY_BATCH = 100;

/**
 * Publishes the status page's unsent events (kept whole in `status_outbox_events`) with their id
 * as `Nats-Msg-Id`, then marks them sent; the same rules as the story outbox's pass (a second
 * copy is dropped by the bus by its id). Runs in the outbox relay's every pass.
 */
export async function relayStatusOnce(db: Db, bus: EventBus): Promise<number> {
  const rows = await db
    .select()
    .from(statusOutboxEvents)
    .where(isNull(statusOutboxEvents.publishedAt))
    .orderBy(asc(statusOutboxEvents.createdAt))
    .limit(STATUS_RELAY_BATCH);
  if (rows.length === 0) return 0;
  // In order, one at a time: subscribers see an incident's updates in the order they were made.
  for (const row of rows) {
    await withParent(contextFromTraceParent(row.traceParent), () =>
      bus.publish(row.payload as unknown as BusEvent),
    );
  }
  await db
    .update(statusOutboxEvents)
    .set({ publishedAt: new Date() })
    .where(
      and(
        inArray(
          statusOutboxEvents.id,
          rows.map((row) => row.id),
        ),
        isNull(statusOutboxEvents.publishedAt),
      ),
    );
  return rows.length;
}

/** Age in seconds of the oldest unsent status event (0 when none): a probe of the outbox. */
export async function statusOutboxAgeSeconds(db: Db): Promise<number> {
  const [row] = await db
    .select({ oldest: min(statusOutboxEvents.createdAt) })
    .from(statusOutboxEvents)
    .where(isNull(statusOutboxEvents.publishedAt));
  return row?.oldest ? Math.max(0, (Date.now() - new Date(row.oldest).getTime()) / 1000) : 0;
}
