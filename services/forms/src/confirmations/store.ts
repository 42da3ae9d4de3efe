import type { Queryable, Tx } from "@newsroom/shared/db/index";
import { newsletterConfirmations } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { and, count, eq, gte, isNull, lt, sql } from "drizzle-orm";

/**
 * Pending double opt-in confirmations of both lists. Only the token's hash is kept. Rows are
 * found by token hash (the token names its organization), so lookups by token are the one kind
 * of query here that does not start from an organization id.
 */
export type ConfirmationRow = typeof newsletterConfirmations.$inferSelect;

export async function insertConfirmation(
  db: Queryable,
  values: {
    list: "digest" | "org";
    organizationId: string | null;
    email: string;
    tokenHash: string;
    redirect: string | null;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await db.insert(newsletterConfirmations).values({ id: newId(), ...values });
}

/** Which list a confirmation belongs to: the digest, or one organization's newsletter. */
export type ConfirmationList = { list: "digest" } | { list: "org"; organizationId: string };

/** Confirmation emails sent to an address on one list since a time (for the throttles). */
export async function countConfirmationsSince(
  db: Queryable,
  list: ConfirmationList,
  email: string,
  since: Date,
): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(newsletterConfirmations)
    .where(
      and(
        eq(newsletterConfirmations.email, email),
        gte(newsletterConfirmations.createdAt, since),
        eq(newsletterConfirmations.list, list.list),
        list.list === "org"
          ? eq(newsletterConfirmations.organizationId, list.organizationId)
          : undefined,
      ),
    );
  return row?.n ?? 0;
}

/**
 * Serializes the subscribe requests of one address in a transaction, so two at once cannot both
 * pass the per-address throttle.
 */
export async function lockAddress(tx: Tx, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`);
}

export async function findConfirmation(
  db: Queryable,
  tokenHash: string,
): Promise<ConfirmationRow | undefined> {
  const [row] = await db
    .select()
    .from(newsletterConfirmations)
    .where(eq(newsletterConfirmations.tokenHash, tokenHash));
  return row;
}

/** The row, locked until the transaction ends: two confirmations of one link run one by one. */
export async function lockConfirmation(
  tx: Tx,
  tokenHash: string,
): Promise<ConfirmationRow | undefined> {
  const [row] = await tx
    .select()
    .from(newsletterConfirmations)
    .where(eq(newsletterConfirmations.tokenHash, tokenHash))
    .for("update");
  return row;
}

/** Marks a link used; `forgetEmail` removes the address (organization lists). */
export async function markConfirmationUsed(
  tx: Tx,
  id: string,
  usedAt: Date,
  options: { forgetEmail: boolean },
): Promise<void> {
  await tx
    .update(newsletterConfirmations)
    .set(options.forgetEmail ? { usedAt, email: null } : { usedAt })
    .where(and(eq(newsletterConfirmations.id, id), isNull(newsletterConfirmations.usedAt)));
}

/** Links past their 48 hours are forgotten, with the address they held. */
export async function deleteExpiredConfirmations(db: Queryable, now: Date): Promise<number> {
  const gone = await db
    .delete(newsletterConfirmations)
    .where(lt(newsletterConfirmations.expiresAt, now))
    .returning({ id: newsletterConfirmations.id });
  return gone.length;
}
