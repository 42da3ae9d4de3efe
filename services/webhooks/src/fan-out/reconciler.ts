import type { Db } from "@newsroom/shared/db/index";
import { fanOutEvents, storyEventOf } from "./service.ts";
import { eventsNotFannedOut } from "./store.ts";

/** Events younger than this are left to the bus consumer (one minute). */
export const RECONCILE_AFTER_MS = 60_000;
const BATCH = 100;

/**
 * Fans out, straight from the outbox, every event committed over `afterMs` (a minute) ago and
 * not yet fanned out: the bus may have lost it (JetStream acknowledges before it reaches disk).
 * Returns how many events it fanned out and how many deliveries that created.
 */
export async function reconcileOnce(
  db: Db,
  now: Date = new Date(),
  afterMs: number = RECONCILE_AFTER_MS,
): Promise<{ events: number; deliveries: number }> {
  const before = new Date(now.getTime() - afterMs);
  let events = 0;
  let deliveries = 0;
  for (;;) {
    const rows = await eventsNotFannedOut(db, before, BATCH);
    for (const result of await fanOutEvents(db, rows.map(storyEventOf))) {
      if (!result.alreadyFannedOut) events += 1;
      deliveries += result.created;
    }
    if (rows.length < BATCH) break;
  }
  return { events, deliveries };
}
