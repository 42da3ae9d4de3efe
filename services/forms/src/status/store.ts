import type { Queryable } from "@newsroom/shared/db/index";
import { statusSubscribers } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { asc, count, eq, gt } from "drizzle-orm";

/** The status page's email subscribers (not tenant data): confirmed addresses only. */

/** A confirmation that added an address: the new row's id. */
export interface StatusJoin {
  id: string;
}

/** Adds a confirmed address. The join when it was not on the list, else null. */
export async function joinStatus(
  db: Queryable,
  email: string,
  now: Date,
): Promise<StatusJoin | null> {
  const [inserted] = await db
    .insert(statusSubscribers)
    .values({ id: newId(), email, confirmedAt: now, createdAt: now })
    .onConflictDoNothing({ target: statusSubscribers.email })
    .returning({ id: statusSubscribers.id });
  return inserted ?? null;
}

/** Takes a join back (its welcome email failed). */
export async function undoJoinStatus(db: Queryable, join: StatusJoin): Promise<void> {
  await db.delete(statusSubscribers).where(eq(statusSubscribers.id, join.id));
}

export async function isStatusSubscriber(db: Queryable, id: string): Promise<boolean> {
  const [row] = await db
    .select({ id: statusSubscribers.id })
    .from(statusSubscribers)
    .where(eq(statusSubscribers.id, id));
  return row !== undefined;
}

/** Unsubscribing forgets the address. True when it was on the list until now. */
export async function leaveStatus(db: Queryable, id: string): Promise<boolean> {
  const gone = await db
    .delete(statusSubscribers)
    .where(eq(statusSubscribers.id, id))
    .returning({ id: statusSubscribers.id });
  return gone.length > 0;
}

export async function countStatusSubscribers(db: Queryable): Promise<number> {
  const [row] = await db.select({ n: count() }).from(statusSubscribers);
  return row?.n ?? 0;
}

/** Subscribers after `afterId`, in id order: one page of a send. */
export async function statusSubscribersAfter(
  db: Queryable,
  afterId: string | null,
  limit: number,
): Promise<{ id: string; email: string }[]> {
  return db
    .select({ id: statusSubscribers.id, email: statusSubscribers.email })
    .from(statusSubscribers)
    .where(afterId ? gt(statusSubscribers.id, afterId) : undefined)
    .orderBy(asc(statusSubscribers.id))
    .limit(limit);
}
