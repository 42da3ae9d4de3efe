import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "./db/index.ts";
import { approvalDecisions, stories, storyTopics, storyVersions, topics } from "./db/schema.ts";
import { type ApprovalDecisionOut, iso, type StoryDetailOut, type StoryOut } from "./records.ts";

export type StoryRow = typeof stories.$inferSelect;

/**
 * The columns of a Story record in one query: the story, its current version's title and
 * summary (join `currentVersionOf`), and its topic slugs.
 */
export const storyRecordColumns = {
  story: stories,
  title: storyVersions.title,
  summary: storyVersions.summary,
  topics: sql<string[]>`coalesce((
    select array_agg(${topics.slug} order by ${topics.slug})
    from ${storyTopics} join ${topics} on ${topics.id} = ${storyTopics.topicId}
    where ${storyTopics.storyId} = ${stories.id} and ${topics.organizationId} = ${stories.organizationId}
  ), '{}')`,
};

/** The join condition of a story's current version, for `storyRecordColumns`. */
export const currentVersionOf = and(
  eq(storyVersions.storyId, stories.id),
  eq(storyVersions.version, stories.currentVersion),
);

/** A column of the current version of the story in scope, as a subquery. */
function currentVersionColumn(column: typeof storyVersions.title | typeof storyVersions.summary) {
  const subquery = sql`(select ${column} from ${storyVersions} where ${currentVersionOf})`;
  // Nested in a fragment of its own: a single-table `returning` writes a fragment's top-level
  // columns without their table's name.
  return sql<string | null>`${subquery}`;
}

/**
 * `storyRecordColumns` for the `returning` of a write to `stories`, which has no join: the
 * current version's title and summary as subqueries. Read back with `storyRecordOf`.
 */
export const storyRecordReturning = {
  story: stories,
  title: currentVersionColumn(storyVersions.title),
  summary: currentVersionColumn(storyVersions.summary),
  topics: sql<string[]>`${storyRecordColumns.topics}`,
};

/** A row read with `storyRecordColumns` as a Story record. */
export function storyRecordOf(row: {
  story: StoryRow;
  title: string | null;
  summary: string | null;
  topics: string[] | null;
}): StoryOut {
  return toStoryOut(row.story, row, row.topics ?? []);
}

/**
 * Turns story rows into Story records: the current version's title and summary, and the topic
 * slugs. Two queries for any number of stories. Rows must belong to `organizationId`.
 */
export async function storyRecords(
  db: Queryable,
  organizationId: string,
  rows: StoryRow[],
): Promise<StoryOut[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [versions, topicRows] = await Promise.all([
    db
      .select({
        storyId: storyVersions.storyId,
        version: storyVersions.version,
        title: storyVersions.title,
        summary: storyVersions.summary,
      })
      .from(storyVersions)
      .where(inArray(storyVersions.storyId, ids)),
    db
      .select({ storyId: storyTopics.storyId, slug: topics.slug })
      .from(storyTopics)
      .innerJoin(topics, eq(topics.id, storyTopics.topicId))
      .where(and(eq(topics.organizationId, organizationId), inArray(storyTopics.storyId, ids))),
  ]);
  const currentVersion = new Map<string, { title: string | null; summary: string | null }>();
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const v of versions) {
    if (byId.get(v.storyId)?.currentVersion === v.version) currentVersion.set(v.storyId, v);
  }
  const topicsOf = new Map<string, string[]>();
  for (const t of topicRows) topicsOf.set(t.storyId, [...(topicsOf.get(t.storyId) ?? []), t.slug]);
  return rows.map((row) => toStoryOut(row, currentVersion.get(row.id), topicsOf.get(row.id) ?? []));
}

export function toStoryOut(
  row: StoryRow,
  version: { title: string | null; summary: string | null } | undefined,
  topicSlugs: string[],
): StoryOut {
  return {
    object: "story",
    id: row.id,
    type: row.type,
    slug: row.slug,
    status: row.status,
    title: version?.title ?? null,
    summary: version?.summary ?? null,
    version: row.currentVersion,
    topics: [...topicSlugs].sort(),
    published_at: iso(row.publishedAt),
    publish_at: iso(row.publishAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** One story of the organization as a Story record, or null (missing or another org's). */
export async function readStory(
  db: Queryable,
  organizationId: string,
  storyId: string,
): Promise<StoryOut | null> {
  const [row] = await db
    .select(storyRecordColumns)
    .from(stories)
    .leftJoin(storyVersions, currentVersionOf)
    .where(and(eq(stories.organizationId, organizationId), eq(stories.id, storyId)));
  return row ? storyRecordOf(row) : null;
}

/**
 * The StoryDetail record of a story row of the organization: the Story record, its current
 * version's body, and the decisions people made (newest first). The client API's read and the
 * approval routes answer the same record from here.
 */
export async function storyDetailOf(
  db: Queryable,
  organizationId: string,
  row: StoryRow,
): Promise<StoryDetailOut> {
  const [[record], [version], decisions] = await Promise.all([
    storyRecords(db, organizationId, [row]),
    row.currentVersion === null
      ? Promise.resolve([])
      : db
          .select({ body: storyVersions.body })
          .from(storyVersions)
          .where(
            and(eq(storyVersions.storyId, row.id), eq(storyVersions.version, row.currentVersion)),
          ),
    db
      .select()
      .from(approvalDecisions)
      .where(
        and(
          eq(approvalDecisions.organizationId, organizationId),
          eq(approvalDecisions.storyId, row.id),
          eq(approvalDecisions.actorType, "person"),
        ),
      )
      .orderBy(desc(approvalDecisions.decidedAt), desc(approvalDecisions.id)),
  ]);
  const approvals: ApprovalDecisionOut[] = decisions.map((decision) => ({
    object: "approval_decision",
    id: decision.id,
    version: decision.version,
    decision: decision.decision,
    actor_type: decision.actorType,
    actor_role: decision.actorRole,
    note: decision.note,
    decided_at: iso(decision.decidedAt)!,
  }));
  return {
    ...record!,
    body: (version?.body as Record<string, unknown>[] | undefined) ?? [],
    approvals,
  };
}
