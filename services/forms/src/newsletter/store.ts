import type { Queryable } from "@newsroom/shared/db/index";
import {
  hostnames,
  organizationSubscribers,
  organizations,
  sites,
} from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { and, asc, eq } from "drizzle-orm";

export type NewsletterOrganization = {
  id: string;
  slug: string;
  name: string;
  newsletterEnabled: boolean;
  newsletterOrigins: string[];
};

const organizationColumns = {
  id: organizations.id,
  slug: organizations.slug,
  name: organizations.name,
  newsletterEnabled: organizations.newsletterEnabled,
  newsletterOrigins: organizations.newsletterOrigins,
};

/** The organization a public path names by slug (the lookup that finds the organization id). */
export async function findOrganizationBySlug(
  db: Queryable,
  slug: string,
): Promise<NewsletterOrganization | undefined> {
  const [row] = await db
    .select(organizationColumns)
    .from(organizations)
    .where(eq(organizations.slug, slug));
  return row;
}

export async function findOrganization(
  db: Queryable,
  organizationId: string,
): Promise<NewsletterOrganization | undefined> {
  const [row] = await db
    .select(organizationColumns)
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return row;
}

/** The organization's enabled hosted sites and their active hostnames. */
export async function hostedSites(
  db: Queryable,
  organizationId: string,
): Promise<{ slug: string; accent: string; hostnames: string[] }[]> {
  const rows = await db
    .select({ slug: sites.slug, accent: sites.accent, hostname: hostnames.hostname })
    .from(sites)
    .leftJoin(
      hostnames,
      and(
        eq(hostnames.organizationId, organizationId),
        eq(hostnames.siteId, sites.id),
        eq(hostnames.status, "active"),
      ),
    )
    .where(and(eq(sites.organizationId, organizationId), eq(sites.enabled, true)))
    .orderBy(asc(sites.createdAt));
  const bySlug = new Map<string, { slug: string; accent: string; hostnames: string[] }>();
  for (const row of rows) {
    const site = bySlug.get(row.slug) ?? { slug: row.slug, accent: row.accent, hostnames: [] };
    if (row.hostname) site.hostnames.push(row.hostname);
    bySlug.set(row.slug, site);
  }
  return [...bySlug.values()];
}

/** Adds a subscriber by address hash. True when the address was not on the list before. */
export async function addSubscriber(
  db: Queryable,
  organizationId: string,
  emailHash: string,
  now: Date,
): Promise<boolean> {
  const inserted = await db
    .insert(organizationSubscribers)
    .values({ id: newId(), organizationId, emailHash, subscribedAt: now })
    .onConflictDoNothing({
      target: [organizationSubscribers.organizationId, organizationSubscribers.emailHash],
    })
    .returning({ id: organizationSubscribers.id });
  return inserted.length > 0;
}

/** Takes a subscriber off the list again (the welcome email that followed failed). */
export async function removeSubscriber(
  db: Queryable,
  organizationId: string,
  emailHash: string,
): Promise<void> {
  await db
    .delete(organizationSubscribers)
    .where(
      and(
        eq(organizationSubscribers.organizationId, organizationId),
        eq(organizationSubscribers.emailHash, emailHash),
      ),
    );
}
