import type { Queryable } from "@newsroom/shared/db/index";
import { digestSubscriptions } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { and, eq } from "drizzle-orm";

/** The service's own digest list (not tenant data): confirmed addresses. */

/** A join that changed the list, and what the address's row was before it (null: none). */
export interface DigestJoin {
  id: string;
  before: { status: "pending" | "unsubscribed"; confirmedAt: Date | null } | null;
}

/** Joins the address to the digest. The join when it was not subscribed before, else null. */
export async function joinDigest(
  db: Queryable,
  email: string,
  now: Date,
): Promise<DigestJoin | null> {
  const [existing] = await db
    .select({
      id: digestSubscriptions.id,
      status: digestSubscriptions.status,
      confirmedAt: digestSubscriptions.confirmedAt,
    })
    .from(digestSubscriptions)
    .where(eq(digestSubscriptions.email, email))
    .for("update");
  if (existing?.status === "subscribed") return null;
  if (existing) {
    await db
      .update(digestSubscriptions)
      .set({ status: "subscribed", confirmedAt: now })
      .where(eq(digestSubscriptions.id, existing.id));
    return {
      id: existing.id,
      before: { status: existing.status, confirmedAt: existing.confirmedAt },
    };
  }
  const [inserted] = await db
    .insert(digestSubscriptions)
    .values({ id: newId(), email, status: "subscribed", createdAt: now, confirmedAt: now })
    .onConflictDoNothing({ target: digestSubscriptions.email })
    .returning({ id: digestSubscriptions.id });
  return inserted ? { id: inserted.id, before: null } : null;
}

/** Takes a join back (its welcome email failed): the row as it was, or none. */
export async function undoJoinDigest(db: Queryable, join: DigestJoin): Promise<void> {
  if (join.before) {
    await db
      .update(digestSubscriptions)
      .set(join.before)
      .where(eq(digestSubscriptions.id, join.id));
  } else {
    await db.delete(digestSubscriptions).where(eq(digestSubscriptions.id, join.id));
  }
}

/** A subscription's state, or undefined when there is none. */
export async function subscriptionStatus(
  db: Queryable,
  subscriptionId: string,
): Promise<"pending" | "subscribed" | "unsubscribed" | undefined> {
  const [row] = await db
    .select({ status: digestSubscriptions.status })
    .from(digestSubscriptions)
    .where(eq(digestSubscriptions.id, subscriptionId));
  return row?.status;
}

/** Takes a subscription off the list. True when it was subscribed until now. */
export async function leaveDigest(db: Queryable, subscriptionId: string): Promise<boolean> {
  const changed = await db
    .update(digestSubscriptions)
    .set({ status: "unsubscribed" })
    .where(
      and(eq(digestSubscriptions.id, subscriptionId), eq(digestSubscriptions.status, "subscribed")),
    )
    .returning({ id: digestSubscriptions.id });
  return changed.length > 0;
}
