import type { Queryable } from "@newsroom/shared/db/index";
import { hostnames, sites } from "@newsroom/shared/db/schema";
import { canonicalUrl } from "@newsroom/shared/site-address";
import { and, asc, eq } from "drizzle-orm";

/**
 * The organization's hosted newsroom address (its enabled site, on its active hostname once
 * there is one), where an issue links its stories; null without an enabled site.
 */
export async function newsroomAddressOf(
  db: Queryable,
  organizationId: string,
  newsroomHost: string,
): Promise<string | null> {
  const [site] = await db
    .select({ slug: sites.slug, hostname: hostnames.hostname })
    .from(sites)
    .leftJoin(hostnames, and(eq(hostnames.siteId, sites.id), eq(hostnames.status, "active")))
    .where(and(eq(sites.organizationId, organizationId), eq(sites.enabled, true)))
    .orderBy(asc(sites.createdAt), asc(hostnames.hostname))
    .limit(1);
  return site ? canonicalUrl(newsroomHost, site.slug, site.hostname) : null;
}
