import type { Queryable } from "@newsroom/shared/db/index";
import {
  approvalDecisions,
  assets,
  outboxEvents,
  type StoryStatus,
  stories,
  storyVersions,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { isUuid } from "@newsroom/shared/ids";
import type { StoryRow } from "@newsroom/shared/story-records";
import { and, asc, count, desc, eq, ilike, inArray, or } from "drizzle-orm";

/** Reads for the workspace's pages. Every query takes the organization id first. */

export type StoryVersionRow = typeof storyVersions.$inferSelect;

export interface StoryListItem {
  id: string;
  slug: string;
  type: string;
  status: StoryStatus;
  title: string | null;
  currentVersion: number | null;
  updatedAt: Date;
}

/** A list row: the story with its current version's title. */
const STORY_LIST_COLUMNS = {
  id: stories.id,
  slug: stories.slug,
  type: stories.type,
  status: stories.status,
  title: storyVersions.title,
  currentVersion: stories.currentVersion,
  updatedAt: stories.updatedAt,
};
const CURRENT_VERSION = and(
  eq(storyVersions.storyId, stories.id),
  eq(storyVersions.version, stories.currentVersion),
);

export async function listStories(
  db: Queryable,
  organizationId: string,
  statuses?: readonly StoryStatus[],
  limit = 500,
): Promise<StoryListItem[]> {
  const where = statuses
    ? and(eq(stories.organizationId, organizationId), inArray(stories.status, [...statuses]))
    : eq(stories.organizationId, organizationId);
  return db
    .select(STORY_LIST_COLUMNS)
    .from(stories)
    .leftJoin(storyVersions, CURRENT_VERSION)
    .where(where)
    .orderBy(desc(stories.updatedAt), asc(stories.id))
    .limit(limit);
}

/** What the stories page is filtered by: a status, words of the title or slug. */
export interface StoryFilter {
  status: StoryStatus | null;
  text: string;
}

/**
 * One page of an organization's stories, newest change first, filtered; `more` when another
 * page follows.
 */
export async function findStoriesPage(
  db: Queryable,
  organizationId: string,
  filter: StoryFilter,
  page: { offset: number; size: number },
): Promise<{ items: StoryListItem[]; more: boolean }> {
  const pattern = `%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await db
    .select(STORY_LIST_COLUMNS)
    .from(stories)
    .leftJoin(storyVersions, CURRENT_VERSION)
    .where(
      and(
        eq(stories.organizationId, organizationId),
        filter.status ? eq(stories.status, filter.status) : undefined,
        filter.text
          ? or(ilike(storyVersions.title, pattern), ilike(stories.slug, pattern))
          : undefined,
      ),
    )
    .orderBy(desc(stories.updatedAt), asc(stories.id))
    .limit(page.size + 1)
    .offset(page.offset);
  return { items: rows.slice(0, page.size), more: rows.length > page.size };
}

export async function countStoriesByStatus(
  db: Queryable,
  organizationId: string,
): Promise<Map<StoryStatus, number>> {
  const rows = await db
    .select({ status: stories.status, n: count() })
    .from(stories)
    .where(eq(stories.organizationId, organizationId))
    .groupBy(stories.status);
  return new Map(rows.map((row) => [row.status, row.n]));
}

/**
 * Across organizations (labelled: a story page's path names only the story): the story's
 * organization, which the caller then checks the person's access to.
 */
export async function organizationOfStory(db: Queryable, storyId: string): Promise<string | null> {
  if (!isUuid(storyId)) return null;
  const [row] = await db
    .select({ organizationId: stories.organizationId })
    .from(stories)
    .where(eq(stories.id, storyId));
  return row?.organizationId ?? null;
}

export async function findStory(
  db: Queryable,
  organizationId: string,
  storyId: string,
): Promise<StoryRow | null> {
  const [row] = await db
    .select()
    .from(stories)
    .where(and(eq(stories.organizationId, organizationId), eq(stories.id, storyId)));
  return row ?? null;
}

/** A story's versions, newest first. */
export async function storyVersionsOf(
  db: Queryable,
  organizationId: string,
  storyId: string,
): Promise<StoryVersionRow[]> {
  return db
    .select({ version: storyVersions })
    .from(storyVersions)
    .innerJoin(stories, eq(stories.id, storyVersions.storyId))
    .where(and(eq(stories.organizationId, organizationId), eq(storyVersions.storyId, storyId)))
    .orderBy(desc(storyVersions.version))
    .then((rows) => rows.map((row) => row.version));
}

/** A story's approval decisions, newest first, with who decided when a person did. */
export async function storyDecisions(db: Queryable, organizationId: string, storyId: string) {
  return db
    .select({
      decision: approvalDecisions.decision,
      version: approvalDecisions.version,
      actorRole: approvalDecisions.actorRole,
      note: approvalDecisions.note,
      decidedAt: approvalDecisions.decidedAt,
      email: workspacePeople.email,
    })
    .from(approvalDecisions)
    .leftJoin(workspacePeople, eq(workspacePeople.id, approvalDecisions.personId))
    .where(
      and(
        eq(approvalDecisions.organizationId, organizationId),
        eq(approvalDecisions.storyId, storyId),
      ),
    )
    .orderBy(desc(approvalDecisions.decidedAt));
}

/** The events a story's changes wrote, newest first. */
export async function storyEvents(db: Queryable, organizationId: string, storyId: string) {
  return db
    .select({ type: outboxEvents.type, createdAt: outboxEvents.createdAt })
    .from(outboxEvents)
    .where(and(eq(outboxEvents.organizationId, organizationId), eq(outboxEvents.storyId, storyId)))
    .orderBy(desc(outboxEvents.createdAt));
}

/** The organization's images an image block may name (cleared or not), newest first. */
export async function organizationImages(db: Queryable, organizationId: string) {
  return db
    .select({ id: assets.id, alt: assets.alt, url: assets.url, cleared: assets.cleared })
    .from(assets)
    .where(and(eq(assets.organizationId, organizationId), eq(assets.kind, "image")))
    .orderBy(desc(assets.createdAt))
    .limit(500);
}
