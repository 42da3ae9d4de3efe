import type { Queryable } from "@newsroom/shared/db/index";
import { hostnames, sites, stories, storyVersions } from "@newsroom/shared/db/schema";
import { and, asc, desc, eq, inArray, max } from "drizzle-orm";

/** How many stories a feed holds. */
export const FEED_SIZE = 50;

/** The organization's most recent published stories, newest publication first. */
export async function listPublishedRows(db: Queryable, organizationId: string) {
  return db
    .select()
    .from(stories)
    .where(and(eq(stories.organizationId, organizationId), eq(stories.status, "published")))
    .orderBy(desc(stories.publishedAt), desc(stories.id))
    .limit(FEED_SIZE);
}

/** The newest change of any of the organization's stories, or null when it has none. */
export async function newestStoryChange(db: Queryable, organizationId: string) {
  const [row] = await db
    .select({ at: max(stories.updatedAt) })
    .from(stories)
    .where(eq(stories.organizationId, organizationId));
  return row?.at ?? null;
}

/** The current version's body of each story, by story id. */
export async function currentBodies(
  db: Queryable,
  organizationId: string,
  rows: { id: string; currentVersion: number | null }[],
): Promise<Map<string, Record<string, unknown>[]>> {
  if (rows.length === 0) return new Map();
  const found = await db
    .select({
      storyId: storyVersions.storyId,
      version: storyVersions.version,
      body: storyVersions.body,
    })
    .from(storyVersions)
    .innerJoin(stories, eq(stories.id, storyVersions.storyId))
    .where(
      and(
        eq(stories.organizationId, organizationId),
        inArray(
          storyVersions.storyId,
          rows.map((row) => row.id),
        ),
        eq(storyVersions.version, stories.currentVersion),
      ),
    );
  return new Map(found.map((row) => [row.storyId, row.body]));
}

/** The organization's first enabled hosted site and its first active hostname, if any. */
export async function findHostedSite(db: Queryable, organizationId: string) {
  const [site] = await db
    .select({ id: sites.id, slug: sites.slug, name: sites.name })
    .from(sites)
    .where(and(eq(sites.organizationId, organizationId), eq(sites.enabled, true)))
    .orderBy(asc(sites.createdAt), asc(sites.id))
    .limit(1);
  if (!site) return null;
  const [host] = await db
    .select({ hostname: hostnames.hostname })
    .from(hostnames)
    .where(
      and(
        eq(hostnames.organizationId, organizationId),
        eq(hostnames.siteId, site.id),
        eq(hostnames.status, "active"),
      ),
    )
    .orderBy(asc(hostnames.activatedAt), asc(hostnames.id))
    .limit(1);
  return { ...site, hostname: host?.hostname ?? null };
}
