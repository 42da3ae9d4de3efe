import type { Queryable } from "@newsroom/shared/db/index";
import { rowsOf } from "@newsroom/shared/db/rows";
import {
  assets,
  people,
  relatedStories,
  STORY_TYPES,
  type StoryType,
  stories,
  storyAssets,
  storyPeople,
  storyTopics,
  storyVersions,
  topics,
} from "@newsroom/shared/db/schema";
import { and, asc, desc, eq, exists, inArray, isNotNull, type SQL, sql } from "drizzle-orm";
import type { Position } from "./cursor.ts";

/**
 * Reads of published content. Every function takes the organization id first and only ever
 * sees `published` stories of that organization, cleared assets and the organization's people.
 */

/** The one condition of public visibility. */
function published(organizationId: string): SQL {
  return and(
    eq(stories.organizationId, organizationId),
    eq(stories.status, "published"),
    isNotNull(stories.publishedAt),
  )!;
}

/** `published_at` to the microsecond, as text, for the cursor. */
const positionAt = sql<string>`to_char(${stories.publishedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const summaryColumns = {
  id: stories.id,
  type: stories.type,
  slug: stories.slug,
  featured: stories.featured,
  externalUrl: stories.externalUrl,
  publishedAt: stories.publishedAt,
  updatedAt: stories.updatedAt,
  title: storyVersions.title,
  summary: storyVersions.summary,
  positionAt,
};

export interface SummaryRow {
  id: string;
  type: StoryType;
  slug: string;
  featured: boolean;
  externalUrl: string | null;
  publishedAt: Date | null;
  updatedAt: Date;
  title: string | null;
  summary: string | null;
  positionAt: string;
}

export interface ItemRow extends SummaryRow {
  body: Record<string, unknown>[] | null;
}

const currentVersion = and(
  eq(storyVersions.storyId, stories.id),
  eq(storyVersions.version, stories.currentVersion),
);

function hasTopic(organizationId: string, topic: string): SQL {
  return exists(
    sql`(select 1 from ${storyTopics} inner join ${topics} on ${topics.id} = ${storyTopics.topicId}
      where ${storyTopics.storyId} = ${stories.id}
        and ${topics.organizationId} = ${organizationId}
        and ${topics.slug} = ${topic})`,
  );
}

export interface PageFilter {
  type?: StoryType;
  topic?: string;
  after?: Position;
  featured?: boolean;
  limit: number;
}

/** Published items, newest first, after a position (keyset on published_at, id). */
export async function publishedPage(
  db: Queryable,
  organizationId: string,
  filter: PageFilter,
): Promise<SummaryRow[]> {
  const conditions: SQL[] = [published(organizationId)];
  if (filter.type) conditions.push(eq(stories.type, filter.type));
  if (filter.topic) conditions.push(hasTopic(organizationId, filter.topic));
  if (filter.featured) conditions.push(eq(stories.featured, true));
  if (filter.after) {
    // The plain bound lets the (organization, status, published_at) index start at the
    // position; the row comparison then breaks ties on the id.
    conditions.push(
      sql`${stories.publishedAt} <= ${filter.after.at}::timestamptz`,
      sql`(${stories.publishedAt}, ${stories.id}) < (${filter.after.at}::timestamptz, ${filter.after.id}::uuid)`,
    );
  }
  return db
    .select(summaryColumns)
    .from(stories)
    .leftJoin(storyVersions, currentVersion)
    .where(and(...conditions))
    .orderBy(desc(stories.publishedAt), desc(stories.id))
    .limit(filter.limit);
}

/** Published items with their bodies (search documents), newest first. */
export async function publishedWithBodies(
  db: Queryable,
  organizationId: string,
  limit: number,
): Promise<ItemRow[]> {
  return db
    .select({ ...summaryColumns, body: storyVersions.body })
    .from(stories)
    .leftJoin(storyVersions, currentVersion)
    .where(published(organizationId))
    .orderBy(desc(stories.publishedAt), desc(stories.id))
    .limit(limit);
}

/** Slug and last change of every published item (sitemaps), newest first. */
export async function publishedLocations(
  db: Queryable,
  organizationId: string,
  limit: number,
  offset = 0,
) {
  return db
    .select({ slug: stories.slug, publishedAt: stories.publishedAt, updatedAt: stories.updatedAt })
    .from(stories)
    .where(published(organizationId))
    .orderBy(desc(stories.publishedAt), desc(stories.id))
    .limit(limit)
    .offset(offset);
}

/** How many published items the organization has (a sitemap's size). */
export async function countPublished(db: Queryable, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(stories)
    .where(published(organizationId));
  return row?.count ?? 0;
}

export async function publishedItemBySlug(
  db: Queryable,
  organizationId: string,
  slug: string,
): Promise<ItemRow | null> {
  const [row] = await db
    .select({ ...summaryColumns, body: storyVersions.body })
    .from(stories)
    .leftJoin(storyVersions, currentVersion)
    .where(and(published(organizationId), eq(stories.slug, slug)));
  return row ?? null;
}

/** Types that have published items: one probe per type, each stopping at its first item. */
export async function publishedTypes(db: Queryable, organizationId: string): Promise<StoryType[]> {
  const probes = STORY_TYPES.map(
    (type) =>
      sql`select ${type}::text as type where exists (select 1 from ${stories} where ${and(
        published(organizationId),
        eq(stories.type, type),
      )})`,
  );
  const rows = await db.execute<{ type: StoryType }>(sql.join(probes, sql` union all `));
  return rowsOf<{ type: StoryType }>(rows).map((row) => row.type);
}

/** Topics that have a published item, by name; each probe stops at its first item. */
export async function publishedTopics(db: Queryable, organizationId: string) {
  return db
    .select({ slug: topics.slug, name: topics.name })
    .from(topics)
    .where(
      and(
        eq(topics.organizationId, organizationId),
        exists(
          db
            .select({ one: sql`1` })
            .from(storyTopics)
            .innerJoin(stories, eq(stories.id, storyTopics.storyId))
            .where(and(eq(storyTopics.topicId, topics.id), published(organizationId))),
        ),
      ),
    )
    .orderBy(asc(topics.name), asc(topics.slug));
}

/** A topic of the organization, only when it has a published item. */
export async function publishedTopic(db: Queryable, organizationId: string, slug: string) {
  const [row] = await db
    .select({ slug: topics.slug, name: topics.name })
    .from(topics)
    .where(
      and(
        eq(topics.organizationId, organizationId),
        eq(topics.slug, slug),
        exists(
          db
            .select({ one: sql`1` })
            .from(storyTopics)
            .innerJoin(stories, eq(stories.id, storyTopics.storyId))
            .where(and(eq(storyTopics.topicId, topics.id), published(organizationId))),
        ),
      ),
    );
  return row ?? null;
}

/** Topics of these stories (of the organization). */
export async function topicsOfStories(db: Queryable, organizationId: string, storyIds: string[]) {
  if (storyIds.length === 0) return [];
  return db
    .select({ storyId: storyTopics.storyId, slug: topics.slug, name: topics.name })
    .from(storyTopics)
    .innerJoin(topics, eq(topics.id, storyTopics.topicId))
    .where(and(eq(topics.organizationId, organizationId), inArray(storyTopics.storyId, storyIds)))
    .orderBy(asc(topics.name), asc(topics.slug));
}

/** Cleared assets of these stories, in their order. Uncleared assets never leave this query. */
export async function clearedAssetsOfStories(
  db: Queryable,
  organizationId: string,
  storyIds: string[],
) {
  if (storyIds.length === 0) return [];
  return db
    .select({
      storyId: storyAssets.storyId,
      id: assets.id,
      url: assets.url,
      alt: assets.alt,
      kind: assets.kind,
      width: assets.width,
      height: assets.height,
    })
    .from(storyAssets)
    .innerJoin(assets, eq(assets.id, storyAssets.assetId))
    .where(
      and(
        eq(assets.organizationId, organizationId),
        eq(assets.cleared, true),
        inArray(storyAssets.storyId, storyIds),
      ),
    )
    .orderBy(asc(storyAssets.position), asc(assets.createdAt), asc(assets.id));
}

export async function peopleOfStory(db: Queryable, organizationId: string, storyId: string) {
  return db
    .select({ name: people.name, role: people.role })
    .from(storyPeople)
    .innerJoin(people, eq(people.id, storyPeople.personId))
    .where(and(eq(people.organizationId, organizationId), eq(storyPeople.storyId, storyId)))
    .orderBy(asc(storyPeople.position), asc(people.name));
}

/** Related items that are published items of the same organization, in their order. */
export async function publishedRelated(
  db: Queryable,
  organizationId: string,
  storyId: string,
): Promise<SummaryRow[]> {
  return db
    .select(summaryColumns)
    .from(relatedStories)
    .innerJoin(stories, eq(stories.id, relatedStories.relatedStoryId))
    .leftJoin(storyVersions, currentVersion)
    .where(and(eq(relatedStories.storyId, storyId), published(organizationId)))
    .orderBy(asc(relatedStories.position), desc(stories.publishedAt));
}

/** The asset by id when it is the organization's and cleared (site logos). */
export async function clearedAsset(db: Queryable, organizationId: string, assetId: string) {
  const [row] = await db
    .select({ url: assets.url, alt: assets.alt, kind: assets.kind })
    .from(assets)
    .where(
      and(
        eq(assets.organizationId, organizationId),
        eq(assets.id, assetId),
        eq(assets.cleared, true),
      ),
    );
  return row ?? null;
}
