import type { Queryable } from "@newsroom/shared/db/index";
import {
  digestSubscriptions,
  hostnames,
  organizations,
  sites,
  stories,
  storyVersions,
} from "@newsroom/shared/db/schema";
import { isUuid } from "@newsroom/shared/ids";
import { canonicalUrl } from "@newsroom/shared/site-address";
import { and, asc, count, eq, gt, gte, lt } from "drizzle-orm";

/** What a send reads of an organization (the workspace writes organizations). */
const organizationColumns = {
  id: organizations.id,
  slug: organizations.slug,
  name: organizations.name,
  newsroomRunning: organizations.newsroomRunning,
  newsletterEnabled: organizations.newsletterEnabled,
};

/** An organization by id or slug (the house newsroom's is HOUSE_ORG), when it exists. */
export async function findOrganization(db: Queryable, idOrSlug: string) {
  const [row] = await db
    .select(organizationColumns)
    .from(organizations)
    .where(isUuid(idOrSlug) ? eq(organizations.id, idOrSlug) : eq(organizations.slug, idOrSlug));
  return row;
}

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

export interface DigestItem {
  slug: string;
  title: string | null;
  summary: string | null;
  publishedAt: Date;
}

/** The organization's items published in [start, end), oldest first, at most `limit`. */
export async function publishedBetween(
  db: Queryable,
  organizationId: string,
  start: Date,
  end: Date,
  limit: number,
): Promise<DigestItem[]> {
  const rows = await db
    .select({
      slug: stories.slug,
      title: storyVersions.title,
      summary: storyVersions.summary,
      publishedAt: stories.publishedAt,
    })
    .from(stories)
    .leftJoin(
      storyVersions,
      and(eq(storyVersions.storyId, stories.id), eq(storyVersions.version, stories.currentVersion)),
    )
    .where(
      and(
        eq(stories.organizationId, organizationId),
        eq(stories.status, "published"),
        gte(stories.publishedAt, start),
        lt(stories.publishedAt, end),
      ),
    )
    .orderBy(asc(stories.publishedAt), asc(stories.id))
    .limit(limit);
  return rows.map((row) => ({ ...row, publishedAt: row.publishedAt! }));
}

/** The service's own digest list (not tenant data). */
export async function countConfirmedSubscribers(db: Queryable): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(digestSubscriptions)
    .where(eq(digestSubscriptions.status, "subscribed"));
  return row?.n ?? 0;
}

/** Confirmed subscribers after `afterId`, in id order: one page of a run. */
export async function confirmedSubscribersAfter(
  db: Queryable,
  afterId: string | null,
  limit: number,
): Promise<{ id: string; email: string }[]> {
  const confirmed = eq(digestSubscriptions.status, "subscribed");
  return db
    .select({ id: digestSubscriptions.id, email: digestSubscriptions.email })
    .from(digestSubscriptions)
    .where(afterId ? and(confirmed, gt(digestSubscriptions.id, afterId)) : confirmed)
    .orderBy(asc(digestSubscriptions.id))
    .limit(limit);
}
