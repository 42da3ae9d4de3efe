import type { Queryable } from "@newsroom/shared/db/index";
import { hostnames, sites } from "@newsroom/shared/db/schema";
import { and, asc, eq, exists, sql } from "drizzle-orm";

/**
 * `robots.txt`. A client hostname's names its sitemap, or disallows everything while its site is
 * not live. The service's own host covers the house newsroom and the sites hosted under
 * NEWSROOM_HOST's path: each site that is not live is disallowed there by its path.
 */
export function siteRobots(site: { live: boolean; sitemapUrl: string }): string {
  if (!site.live) return "User-agent: *\nDisallow: /\n";
  return `User-agent: *\nAllow: /\n\nSitemap: ${site.sitemapUrl}\n`;
}

export interface HostedSitePlace {
  /** The site's path on this host, e.g. `/newsrooms/client-news`. */
  path: string;
  live: boolean;
  /** Null when its canonical address is on a client hostname (that host's robots.txt names it). */
  sitemapUrl: string | null;
}

export function serviceRobots(house: { sitemapUrl: string }, sites: HostedSitePlace[]): string {
  const lines = ["User-agent: *"];
  for (const site of sites) {
    if (!site.live) lines.push(`Disallow: ${site.path}/`, `Disallow: ${site.path}$`);
  }
  lines.push("Allow: /", "");
  lines.push(`Sitemap: ${house.sitemapUrl}`);
  for (const site of sites)
    if (site.live && site.sitemapUrl) lines.push(`Sitemap: ${site.sitemapUrl}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Every enabled site's slug, whether it is live and whether it has an active client hostname (its
 * canonical address is then there, not under this host), for the service's own robots.txt: the
 * same sites anyone can open under NEWSROOM_HOST's path. At most `limit`, by slug.
 */
export async function enabledSiteSlugs(
  db: Queryable,
  limit = 10_000,
): Promise<{ slug: string; live: boolean; onClientHost: boolean }[]> {
  const active = db
    .select({ id: hostnames.id })
    .from(hostnames)
    .where(
      and(
        eq(hostnames.siteId, sites.id),
        eq(hostnames.organizationId, sites.organizationId),
        eq(hostnames.status, "active"),
      ),
    );
  return db
    .select({ slug: sites.slug, live: sites.live, onClientHost: sql<boolean>`${exists(active)}` })
    .from(sites)
    .where(eq(sites.enabled, true))
    .orderBy(asc(sites.slug))
    .limit(limit);
}
