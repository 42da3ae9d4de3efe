import type { Queryable } from "@newsroom/shared/db/index";
import { STORY_STATUSES, type StoryStatus, stories } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import type { StoryOut } from "@newsroom/shared/records";
import { readStory, storyRecords } from "@newsroom/shared/story-records";
import { and, asc, desc, eq, inArray } from "drizzle-orm";

/** A story read through the internal API names its organization (a story path holds only its id). */
export type InternalStoryOut = StoryOut & { organization_id: string };

const notFound = () => new ApiError("not_found", "No such story.");

/** A story of the organization by its id or its slug. */
export async function findStoryInOrganization(
  db: Queryable,
  organizationId: string,
  idOrSlug: string,
): Promise<InternalStoryOut> {
  const [row] = await db
    .select({ id: stories.id })
    .from(stories)
    .where(
      and(
        eq(stories.organizationId, organizationId),
        isUuid(idOrSlug) ? eq(stories.id, idOrSlug) : eq(stories.slug, idOrSlug),
      ),
    );
  const story = row ? await readStory(db, organizationId, row.id) : null;
  if (!story) throw notFound();
  return { ...story, organization_id: organizationId };
}

/** Across organizations (labelled: the path names only the story id): a story by its id. */
export async function findStoryById(db: Queryable, id: string): Promise<InternalStoryOut> {
  if (!isUuid(id)) throw notFound();
  const [row] = await db
    .select({ organizationId: stories.organizationId })
    .from(stories)
    .where(eq(stories.id, id));
  if (!row) throw notFound();
  return findStoryInOrganization(db, row.organizationId, id);
}

/** The organization's stories, latest change first, optionally in these statuses only. */
export async function listStoryRecords(
  db: Queryable,
  organizationId: string,
  statuses: readonly StoryStatus[] | null,
  limit = 500,
): Promise<StoryOut[]> {
  const rows = await db
    .select()
    .from(stories)
    .where(
      statuses
        ? and(eq(stories.organizationId, organizationId), inArray(stories.status, [...statuses]))
        : eq(stories.organizationId, organizationId),
    )
    .orderBy(desc(stories.updatedAt), asc(stories.id))
    .limit(limit);
  return storyRecords(db, organizationId, rows);
}

/** `?status=draft,published`: the statuses named, or a 422 naming the allowed ones. */
export function statusesOf(raw: string | undefined): StoryStatus[] | null {
  if (!raw) return null;
  const named = raw.split(",").filter(Boolean);
  const unknown = named.filter((status) => !STORY_STATUSES.includes(status as StoryStatus));
  if (unknown.length > 0) {
    const message = `Unknown status ${unknown.join(", ")}; allowed: ${STORY_STATUSES.join(", ")}.`;
    throw new ApiError("validation_failed", message, {
      fields: [{ field: "status", reason: "invalid", message }],
    });
  }
  return named as StoryStatus[];
}
