import type { Queryable } from "@newsroom/shared/db/index";
import { digestSubscriptions } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { eq } from "drizzle-orm";

/** The service's own digest list (not tenant data): confirmed addresses. */

/** Joins the address to the digest. True when it was not subscribed before. */
export async function joinDigest(db: Queryable, email: string, now: Date): Promise<boolean> {
  const [existing] = await db
    .select({ id: digestSubscriptions.id, status: digestSubscriptions.status })
    .from(digestSubscriptions)
    .where(eq(digestSubscriptions.email, email))
    .for("update");
  if (existing?.status === "subscribed") return false;
  if (existing) {
    await db
      .update(digestSubscriptions)
      .set({ status: "subscribed", confirmedAt: now })
      .where(eq(digestSubscriptions.id, existing.id));
    return true;
  }
  const inserted = await db
    .insert(digestSubscriptions)
    .values({ id: newId(), email, status: "subscribed", createdAt: now, confirmedAt: now })
    .onConflictDoNothing({ target: digestSubscriptions.email })
    .returning({ id: digestSubscriptions.id });
  return inserted.length > 0;
}
