import type { Queryable } from "@newsroom/shared/db/index";
import {
  organizations,
  relatedStories,
  sites,
  stories,
  storyTopics,
  topics,
} from "@newsroom/shared/db/schema";
import { eq, type SQL, sql } from "drizzle-orm";
import type { StoryPlaces } from "./cache-tags.ts";

/** A subquery's one text column as an array, in its order. */
function textArray(query: SQL) {
  return sql<string[]>`array(${query})`;
}

/**
 * Where a story of this organization can be shown: its topics, whether the organization is the
 * house, and the organization's sites (enabled or not: purging a disabled site costs nothing).
 * One statement: the organization's row with the rest as subqueries (without the organization,
 * which every story, site and topic belongs to, there is nothing to list).
 */
export async function storyPlaces(
  db: Queryable,
  organizationId: string,
  storyId: string,
  houseOrg: string,
): Promise<StoryPlaces> {
  const [row] = await db
    .select({
      slug: organizations.slug,
      topics: textArray(sql`
        select ${topics.slug} from ${storyTopics}
        join ${topics} on ${topics.id} = ${storyTopics.topicId}
        where ${topics.organizationId} = ${organizationId} and ${storyTopics.storyId} = ${storyId}
        order by ${topics.slug}`),
      sites: textArray(sql`
        select ${sites.slug} from ${sites}
        where ${sites.organizationId} = ${organizationId}
        order by ${sites.slug}`),
      relatedFrom: textArray(sql`
        select ${relatedStories.storyId}::text from ${relatedStories}
        join ${stories} on ${stories.id} = ${relatedStories.storyId}
        where ${stories.organizationId} = ${organizationId}
          and ${relatedStories.relatedStoryId} = ${storyId}`),
    })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return {
    storyId,
    topics: row?.topics ?? [],
    house: row?.slug === houseOrg,
    sites: row?.sites ?? [],
    relatedFrom: row?.relatedFrom ?? [],
  };
}
