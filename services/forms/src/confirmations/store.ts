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
    list: ConfirmationRow["list"];
    organizationId: string | null;
    email: string;
    tokenHash: string;
    redirect: string | null;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<string> {
  const id = newId();
  await db.insert(newsletterConfirmations).values({ id, ...values });
  return id;
}

/**
 * Confirmation emails sent to an address since a time (for the throttles): of the digest, or of
 * every organization's newsletter together, so one address gets at most so many however many
 * organizations it is subscribed to.
 */
export async function countConfirmationsSince(
  db: Queryable,
  list: ConfirmationRow["list"],
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
        eq(newsletterConfirmations.list, list),
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

/**
 * Opens a used link again with its address, after the email that followed its use failed: the
 * link stays usable (the spec's 502 answer).
 */
export async function reopenConfirmation(db: Queryable, id: string, email: string): Promise<void> {
  await db
    .update(newsletterConfirmations)
    .set({ usedAt: null, email })
    .where(eq(newsletterConfirmations.id, id));
}

/** Withdraws a confirmation whose email was not sent, so it throttles no retry. */
export async function deleteConfirmation(db: Queryable, id: string): Promise<void> {
  await db.delete(newsletterConfirmations).where(eq(newsletterConfirmations.id, id));
}

/** Links past their 48 hours are forgotten, with the address they held. */
export async function deleteExpiredConfirmations(db: Queryable, now: Date): Promise<number> {
  const gone = await db
    .delete(newsletterConfirmations)
    .where(lt(newsletterConfirmations.expiresAt, now))
    .returning({ id: newsletterConfirmations.id });
  return gone.length;
}
