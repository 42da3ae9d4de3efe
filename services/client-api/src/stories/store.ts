import type { Db, Queryable } from "@newsroom/shared/db/index";
import { type StoryStatus, stories, storyVersions } from "@newsroom/shared/db/schema";
import {
  currentVersionOf,
  type StoryRow,
  storyRecordColumns,
} from "@newsroom/shared/story-records";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
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

/** The shapes a page query takes: by how many statuses it filters, and whether it has a cursor. */
type PageShape = `${"all" | "one" | "many"}:${"first" | "after"}`;

function pageQuery(db: Db, shape: PageShape) {
  const [filter, position] = shape.split(":");
  const conditions: SQL[] = [eq(stories.organizationId, sql.placeholder("organizationId"))];
  // One status compares with `=`, so the (organization, status, updated_at, id) index both
  // filters and orders; several compare with `any`, one array parameter whatever their number.
  if (filter === "one") conditions.push(eq(stories.status, sql.placeholder("status")));
  if (filter === "many") {
    conditions.push(sql`${stories.status} = any(${sql.placeholder("statuses")}::text[])`);
  }
  if (position === "after") {
    conditions.push(
      sql`(${stories.updatedAt}, ${stories.id}) < (${sql.placeholder("afterAt")}::timestamptz, ${sql.placeholder("afterId")}::uuid)`,
    );
  }
  return db
    .select({ ...storyRecordColumns, micros: updatedMicros })
    .from(stories)
    .leftJoin(storyVersions, currentVersionOf)
    .where(and(...conditions))
    .orderBy(desc(stories.updatedAt), desc(stories.id))
    .limit(sql.placeholder("limit"))
    .prepare(`client_api_story_page_${shape.replace(":", "_")}`);
}

type PageQuery = ReturnType<typeof pageQuery>;
/** Per database, its six page statements, each prepared once and kept with its connection. */
const pageQueries = new WeakMap<Db, Map<PageShape, PageQuery>>();

function preparedPage(db: Db, shape: PageShape): PageQuery {
  let queries = pageQueries.get(db);
  if (!queries) {
    queries = new Map();
    pageQueries.set(db, queries);
  }
  let query = queries.get(shape);
  if (!query) {
    query = pageQuery(db, shape);
    queries.set(shape, query);
  }
  return query;
}

/**
 * One page of the organization's stories, newest change first, keyset on (updated_at, id), with
 * the current version and topics joined in: one query per page, from a statement prepared once
 * per shape (the text never depends on the values). Reads `limit + 1` rows so the caller knows
 * whether another page exists.
 */
export async function listStoryRows(
  db: Db,
  organizationId: string,
  options: { statuses?: StoryStatus[]; after?: Position | null; limit: number },
): Promise<PagedStoryRow[]> {
  const statuses = options.statuses ?? [];
  const filter = statuses.length === 0 ? "all" : statuses.length === 1 ? "one" : "many";
  const query = preparedPage(db, `${filter}:${options.after ? "after" : "first"}`);
  return query.execute({
    organizationId,
    status: statuses[0],
    statuses,
    afterAt: options.after ? microsToTimestamp(options.after.micros) : undefined,
    afterId: options.after?.id,
    limit: options.limit + 1,
  });
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
