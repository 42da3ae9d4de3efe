import type { Queryable } from "@newsroom/shared/db/index";
import { organizationSso, organizations, workspaceSsoAttempts } from "@newsroom/shared/db/schema";
import { and, eq, lt, sql } from "drizzle-orm";

export type SsoConfigRow = typeof organizationSso.$inferSelect;
export type SsoAttemptRow = typeof workspaceSsoAttempts.$inferSelect;

export async function findSsoConfig(
  db: Queryable,
  organizationId: string,
): Promise<SsoConfigRow | null> {
  const [row] = await db
    .select()
    .from(organizationSso)
    .where(eq(organizationSso.organizationId, organizationId));
  return row ?? null;
}

/** Locks the organization's configuration until the transaction ends (read before a change). */
export async function lockSsoConfig(
  db: Queryable,
  organizationId: string,
): Promise<SsoConfigRow | null> {
  const [row] = await db
    .select()
    .from(organizationSso)
    .where(eq(organizationSso.organizationId, organizationId))
    .for("update");
  return row ?? null;
}

export async function saveSsoConfig(
  db: Queryable,
  organizationId: string,
  values: Omit<SsoConfigRow, "organizationId" | "createdAt" | "updatedAt">,
  now: Date,
): Promise<SsoConfigRow> {
  const [row] = await db
    .insert(organizationSso)
    .values({ organizationId, ...values, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: organizationSso.organizationId,
      set: { ...values, updatedAt: now },
    })
    .returning();
  return row!;
}

/**
 * Across organizations (labelled: a sign-in starts before anyone is known): the slugs of the
 * organizations with single sign-on enabled for an email domain.
 */
export async function enabledSsoOrganizationsForDomain(
  db: Queryable,
  domain: string,
): Promise<string[]> {
  const rows = await db
    .select({ slug: organizations.slug })
    .from(organizationSso)
    .innerJoin(organizations, eq(organizations.id, organizationSso.organizationId))
    .where(
      and(
        eq(organizationSso.enabled, true),
        sql`${organizationSso.allowedDomains} @> ${JSON.stringify([domain])}::jsonb`,
      ),
    );
  return rows.map((row) => row.slug);
}

/** A new sign-in under way; the expired ones of every organization are cleared on the way. */
export async function insertSsoAttempt(
  db: Queryable,
  attempt: Omit<SsoAttemptRow, "createdAt">,
  now: Date,
): Promise<void> {
  await db.delete(workspaceSsoAttempts).where(lt(workspaceSsoAttempts.expiresAt, now));
  await db.insert(workspaceSsoAttempts).values({ ...attempt, createdAt: now });
}

/** Takes the sign-in under way (deleting it): a second callback with the same cookie finds none. */
export async function takeSsoAttempt(
  db: Queryable,
  tokenHash: string,
): Promise<SsoAttemptRow | null> {
  const [row] = await db
    .delete(workspaceSsoAttempts)
    .where(eq(workspaceSsoAttempts.tokenHash, tokenHash))
    .returning();
  return row ?? null;
}
