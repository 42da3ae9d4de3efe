import type { Db } from "@newsroom/shared/db/index";
import {
  type StoryStatus,
  stories,
  storyTopics,
  storyVersions,
  topics,
} from "@newsroom/shared/db/schema";
import type { SyntheticStory } from "@newsroom/shared/demo/synthetic-stories";
import { newId } from "@newsroom/shared/ids";
import { and, eq, inArray } from "drizzle-orm";
import { ensureTopics } from "./service.ts";

const DAY_MS = 86_400_000;

/**
 * Writes synthetic stories straight into an organization, marked `synthetic`. No person decided
 * on them, so none carries an approval decision or an approved version: the API shows no
 * approvals for them, and publishing one again after a change needs a real approval.
 */
export async function insertStories(
  db: Db,
  organizationId: string,
  list: SyntheticStory[],
  statusOf: (index: number) => StoryStatus,
): Promise<string[]> {
  if (list.length === 0) return [];
  const now = Date.now();
  const rows = list.map((story, index) => ({
    story,
    id: newId(),
    status: statusOf(index),
    at: new Date(now - story.ageDays * DAY_MS),
  }));
  // A few statements for the whole list, not a few per story: the first `npm start` waits for
  // them (the demo in about 1 s instead of 3 on PGlite, 2 busy cores).
  await db.transaction(async (tx) => {
    await tx.insert(stories).values(
      rows.map(({ story, id, status, at }) => ({
        id,
        organizationId,
        type: story.type,
        slug: story.slug,
        status,
        currentVersion: 1,
        externalUrl: story.externalUrl,
        featured: story.featured,
        synthetic: true,
        publishedAt: status === "published" || status === "unpublished" ? at : null,
        createdAt: new Date(at.getTime() - DAY_MS),
        updatedAt: at,
      })),
    );
    await tx.insert(storyVersions).values(
      rows.map(({ story, id, at }) => ({
        id: newId(),
        storyId: id,
        version: 1,
        title: story.title,
        summary: story.summary,
        body: story.body,
        createdAt: new Date(at.getTime() - DAY_MS),
      })),
    );
    const slugs = [...new Set(list.flatMap((story) => story.topics))];
    if (slugs.length === 0) return;
    await ensureTopics(tx, organizationId, slugs);
    const topicRows = await tx
      .select({ id: topics.id, slug: topics.slug })
      .from(topics)
      .where(and(eq(topics.organizationId, organizationId), inArray(topics.slug, slugs)));
    const topicIds = new Map(topicRows.map((row) => [row.slug, row.id]));
    const links = rows.flatMap(({ story, id }) =>
      [...new Set(story.topics)].map((slug) => ({ storyId: id, topicId: topicIds.get(slug)! })),
    );
    if (links.length > 0) await tx.insert(storyTopics).values(links);
  });
  return rows.map((row) => row.id);
}
