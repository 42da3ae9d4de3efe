import type { Db } from "@newsroom/shared/db/index";
import { fanOutEvents, storyEventOf } from "./service.ts";
import { eventsNotFannedOut } from "./store.ts";

/** Events younger than this are left to the bus consumer (one minute). */
export const RECONCILE_AFTER_MS = 60_000;
/**
 * How far back the reconciler looks (seven days): the bus loses an event within minutes, and
 * each pass then compares only the recent outbox with this service's record.
 */
export const RECONCILE_LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000;
const BATCH = 100;

/**
 * Fans out, straight from the outbox, every event committed over `afterMs` (a minute) and under
 * seven days ago that this service has no record of (`webhook_fanned_out_events`): the bus may
 * have lost it (JetStream acknowledges before it reaches disk). It reads the outbox; it never
 * writes it.
 * Returns how many events it fanned out and how many deliveries that created.
 */
export async function reconcileOnce(
  db: Db,
  now: Date = new Date(),
  afterMs: number = RECONCILE_AFTER_MS,
): Promise<{ events: number; deliveries: number }> {
  const before = new Date(now.getTime() - afterMs);
  const since = new Date(now.getTime() - RECONCILE_LOOKBACK_MS);
  let events = 0;
  let deliveries = 0;
  for (;;) {
    const rows = await eventsNotFannedOut(db, since, before, BATCH);
    for (const result of await fanOutEvents(db, rows.map(storyEventOf))) {
      if (!result.alreadyFannedOut) events += 1;
      deliveries += result.created;
    }
    if (rows.length < BATCH) break;
  }
  return { events, deliveries };
}
