import type { Queryable } from "@newsroom/shared/db/index";
import {
  organizations,
  relatedStories,
  sites,
  stories,
  storyTopics,
  topics,
} from "@newsroom/shared/db/schema";
import { and, asc, eq } from "drizzle-orm";
import type { StoryPlaces } from "./cache-tags.ts";

/**
 * Where a story of this organization can be shown: its topics, whether the organization is the
 * house, and the organization's sites (enabled or not: purging a disabled site costs nothing).
 */
export async function storyPlaces(
  db: Queryable,
  organizationId: string,
  storyId: string,
  houseOrg: string,
): Promise<StoryPlaces> {
  const [org, topicRows, siteRows, relatedRows] = await Promise.all([
    db
      .select({ slug: organizations.slug })
      .from(organizations)
      .where(eq(organizations.id, organizationId)),
    db
      .select({ slug: topics.slug })
      .from(storyTopics)
      .innerJoin(topics, eq(topics.id, storyTopics.topicId))
      .where(and(eq(topics.organizationId, organizationId), eq(storyTopics.storyId, storyId)))
      .orderBy(asc(topics.slug)),
    db
      .select({ slug: sites.slug })
      .from(sites)
      .where(eq(sites.organizationId, organizationId))
      .orderBy(asc(sites.slug)),
    db
      .select({ id: relatedStories.storyId })
      .from(relatedStories)
      .innerJoin(stories, eq(stories.id, relatedStories.storyId))
      .where(
        and(eq(stories.organizationId, organizationId), eq(relatedStories.relatedStoryId, storyId)),
      ),
  ]);
  return {
    storyId,
    topics: topicRows.map((row) => row.slug),
    house: org[0]?.slug === houseOrg,
    sites: siteRows.map((row) => row.slug),
    relatedFrom: relatedRows.map((row) => row.id),
  };
}
