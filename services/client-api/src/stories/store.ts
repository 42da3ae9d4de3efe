import type { Queryable } from "@newsroom/shared/db/index";
import {
  approvalDecisions,
  type StoryStatus,
  stories,
  storyVersions,
} from "@newsroom/shared/db/schema";
import {
  currentVersionOf,
  type StoryRow,
  storyRecordColumns,
} from "@newsroom/shared/story-records";
import { and, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { microsToTimestamp, type Position } from "../pagination/cursor.ts";

/**
 * A story row with what its Story record needs (the current version's title and summary, the
 * topic slugs) and its `updated_at` in exact microseconds, for the cursor.
 */
export interface PagedStoryRow {
  story: StoryRow;
  title: string | null;
  summary: string | null;
  topics: string[];
  micros: string;
}

const updatedMicros = sql<string>`(extract(epoch from ${stories.updatedAt}) * 1000000)::bigint::text`;

/**
 * One page of the organization's stories, newest change first, keyset on (updated_at, id), with
 * the current version and topics joined in: one query per page. Reads `limit + 1` rows so the
 * caller knows whether another page exists.
 */
export async function listStoryRows(
  db: Queryable,
  organizationId: string,
  options: { statuses?: StoryStatus[]; after?: Position | null; limit: number },
): Promise<PagedStoryRow[]> {
  const conditions: SQL[] = [eq(stories.organizationId, organizationId)];
  if (options.statuses && options.statuses.length > 0) {
    conditions.push(
      options.statuses.length === 1
        ? eq(stories.status, options.statuses[0]!)
        : inArray(stories.status, options.statuses),
    );
  }
  if (options.after) {
    const at = microsToTimestamp(options.after.micros);
    conditions.push(
      sql`(${stories.updatedAt}, ${stories.id}) < (${at}::timestamptz, ${options.after.id}::uuid)`,
    );
  }
  return db
    .select({ ...storyRecordColumns, micros: updatedMicros })
    .from(stories)
    .leftJoin(storyVersions, currentVersionOf)
    .where(and(...conditions))
    .orderBy(desc(stories.updatedAt), desc(stories.id))
    .limit(options.limit + 1);
}

export async function findStoryRow(
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

/** The structured body of one version of a story of the organization. */
export async function findVersionBody(
  db: Queryable,
  organizationId: string,
  storyId: string,
  version: number,
): Promise<Record<string, unknown>[] | null> {
  const [row] = await db
    .select({ body: storyVersions.body })
    .from(storyVersions)
    .innerJoin(stories, eq(stories.id, storyVersions.storyId))
    .where(
      and(
        eq(stories.organizationId, organizationId),
        eq(storyVersions.storyId, storyId),
        eq(storyVersions.version, version),
      ),
    );
  return row?.body ?? null;
}

/** Actor types of decisions recorded by the approval credential: people in the workspace. */
export const APPROVAL_ACTOR_TYPES = ["person"];

/** The story's approval decisions, newest first. */
export async function listApprovalDecisions(
  db: Queryable,
  organizationId: string,
  storyId: string,
) {
  return db
    .select()
    .from(approvalDecisions)
    .where(
      and(
        eq(approvalDecisions.organizationId, organizationId),
        eq(approvalDecisions.storyId, storyId),
        inArray(approvalDecisions.actorType, APPROVAL_ACTOR_TYPES),
      ),
    )
    .orderBy(desc(approvalDecisions.decidedAt), desc(approvalDecisions.id));
}
