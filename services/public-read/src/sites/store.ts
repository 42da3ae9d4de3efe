import type { Queryable } from "@newsroom/shared/db/index";
import { hostnames, organizations, sites } from "@newsroom/shared/db/schema";
import { and, asc, eq } from "drizzle-orm";

/**
 * Hosted newsroom lookups. A public request names a site by slug or by hostname: these are the
 * entry points that find the organization, so they are the only reads not keyed by it.
 */
const siteColumns = {
  id: sites.id,
  organizationId: sites.organizationId,
  slug: sites.slug,
  name: sites.name,
  publisher: sites.publisher,
  accent: sites.accent,
  logoAssetId: sites.logoAssetId,
  live: sites.live,
  newsroomRunning: organizations.newsroomRunning,
};

export type EnabledSiteRow = {
  id: string;
  organizationId: string;
  slug: string;
  name: string;
  publisher: string;
  accent: string;
  logoAssetId: string | null;
  live: boolean;
  newsroomRunning: boolean;
};

/** Whether the organization has an enabled hosted site (else the house newsroom is its place). */
export async function hasEnabledSite(db: Queryable, organizationId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: sites.id })
    .from(sites)
    .where(and(eq(sites.organizationId, organizationId), eq(sites.enabled, true)))
    .limit(1);
  return row !== undefined;
}

/** An enabled site by its slug. */
export async function enabledSiteBySlug(
  db: Queryable,
  slug: string,
): Promise<EnabledSiteRow | null> {
  const [row] = await db
    .select(siteColumns)
    .from(sites)
    .innerJoin(organizations, eq(organizations.id, sites.organizationId))
    .where(and(eq(sites.slug, slug), eq(sites.enabled, true)));
  return row ?? null;
}

/** The enabled site an active hostname serves (host names are stored lower-case). */
export async function enabledSiteByActiveHostname(
  db: Queryable,
  hostname: string,
): Promise<EnabledSiteRow | null> {
  const [row] = await db
    .select(siteColumns)
    .from(hostnames)
    .innerJoin(sites, eq(sites.id, hostnames.siteId))
    .innerJoin(organizations, eq(organizations.id, sites.organizationId))
    .where(
      and(
        eq(hostnames.hostname, hostname.toLowerCase()),
        eq(hostnames.status, "active"),
        eq(hostnames.organizationId, sites.organizationId),
        eq(sites.enabled, true),
      ),
    );
  return row ?? null;
}

/** The site's first activated hostname: its canonical address. */
export async function activeHostnameOfSite(
  db: Queryable,
  organizationId: string,
  siteId: string,
): Promise<string | null> {
  const [row] = await db
    .select({ hostname: hostnames.hostname })
    .from(hostnames)
    .where(
      and(
        eq(hostnames.organizationId, organizationId),
        eq(hostnames.siteId, siteId),
        eq(hostnames.status, "active"),
      ),
    )
    .orderBy(asc(hostnames.activatedAt), asc(hostnames.hostname))
    .limit(1);
  return row?.hostname ?? null;
}
