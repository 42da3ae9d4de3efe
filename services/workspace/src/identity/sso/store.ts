import type { Queryable } from "@newsroom/shared/db/index";
import {
  organizationSso,
  organizations,
  ssoVerifiedDomains,
  workspaceSsoAttempts,
} from "@newsroom/shared/db/schema";
import { and, eq, lt, notInArray, sql } from "drizzle-orm";

export type SsoConfigRow = typeof organizationSso.$inferSelect;
export type SsoAttemptRow = typeof workspaceSsoAttempts.$inferSelect;
export type VerifiedDomainRow = typeof ssoVerifiedDomains.$inferSelect;

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
 * organizations with single sign-on enabled for an email domain they verified.
 */
export async function enabledSsoOrganizationsForDomain(
  db: Queryable,
  domain: string,
): Promise<string[]> {
  const rows = await db
    .select({ slug: organizations.slug })
    .from(ssoVerifiedDomains)
    .innerJoin(
      organizationSso,
      eq(organizationSso.organizationId, ssoVerifiedDomains.organizationId),
    )
    .innerJoin(organizations, eq(organizations.id, ssoVerifiedDomains.organizationId))
    .where(
      and(
        eq(ssoVerifiedDomains.domain, domain),
        eq(organizationSso.enabled, true),
        sql`${organizationSso.allowedDomains} @> ${JSON.stringify([domain])}::jsonb`,
      ),
    );
  return rows.map((row) => row.slug);
}

/** The domains the organization proved it controls. */
export async function verifiedDomainsOf(
  db: Queryable,
  organizationId: string,
): Promise<VerifiedDomainRow[]> {
  return db
    .select()
    .from(ssoVerifiedDomains)
    .where(eq(ssoVerifiedDomains.organizationId, organizationId));
}

/**
 * Across organizations (labelled: a domain belongs to one organization at most): who verified
 * the domain, if anyone.
 */
export async function verifiedDomainOwner(
  db: Queryable,
  domain: string,
): Promise<VerifiedDomainRow | null> {
  const [row] = await db
    .select()
    .from(ssoVerifiedDomains)
    .where(eq(ssoVerifiedDomains.domain, domain));
  return row ?? null;
}

/** Records the domain as the organization's; false when another organization holds it. */
export async function claimVerifiedDomain(
  db: Queryable,
  organizationId: string,
  domain: string,
  now: Date,
): Promise<boolean> {
  await db
    .insert(ssoVerifiedDomains)
    .values({ domain, organizationId, verifiedAt: now })
    .onConflictDoNothing({ target: ssoVerifiedDomains.domain });
  const owner = await verifiedDomainOwner(db, domain);
  return owner?.organizationId === organizationId;
}

/** Forgets the organization's verified domains that are no longer in its allowed list. */
export async function keepVerifiedDomains(
  db: Queryable,
  organizationId: string,
  allowedDomains: string[],
): Promise<void> {
  await db
    .delete(ssoVerifiedDomains)
    .where(
      allowedDomains.length === 0
        ? eq(ssoVerifiedDomains.organizationId, organizationId)
        : and(
            eq(ssoVerifiedDomains.organizationId, organizationId),
            notInArray(ssoVerifiedDomains.domain, allowedDomains),
          ),
    );
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
