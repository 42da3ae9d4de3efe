import type { Db } from "@newsroom/shared/db/index";
import type { StoryStatus } from "@newsroom/shared/db/schema";
import { invalidParameters, notFound } from "@newsroom/shared/errors";
import type { StoryDetailOut, StoryOut } from "@newsroom/shared/records";
import { storyDetailOf, storyRecordOf } from "@newsroom/shared/story-records";
import type { Caller } from "../auth/service.ts";
import type { CursorCodec, CursorList } from "../pagination/cursor.ts";
import { DEFAULT_LIMIT } from "../pagination/model.ts";
import { emptyList, type ListPage, listOf, splitPage } from "../pagination/page.ts";
import { findStoryRow, listStoryRows } from "./store.ts";

export interface StoryListOptions {
  statuses?: StoryStatus[];
  limit?: number;
  cursor?: string;
}

/**
 * A page of the caller's stories, newest change first. The cursor is checked before anything
 * else, so a bad one is 400 whatever the organization holds.
 */
export async function listStories(
  deps: { db: Db; cursors: CursorCodec },
  caller: Caller,
  options: StoryListOptions,
  list: CursorList = "stories",
): Promise<ListPage<StoryOut>> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const after = options.cursor
    ? deps.cursors.decode(caller.organizationId, list, options.cursor)
    : null;
  if (options.cursor && !after) {
    throw invalidParameters([
      { field: "cursor", reason: "invalid", message: "The cursor is not one this list gave out." },
    ]);
  }
  if (!caller.newsroomRunning) return emptyList();
  const fetched = await listStoryRows(deps.db, caller.organizationId, {
    statuses: options.statuses,
    after,
    limit,
  });
  const { rows, hasMore } = splitPage(fetched, limit);
  const data = rows.map(storyRecordOf);
  return listOf(data, hasMore, () => {
    const last = rows[rows.length - 1]!;
    return deps.cursors.encode(caller.organizationId, list, {
      micros: BigInt(last.micros),
      id: last.story.id,
    });
  });
}

/** One story with its current body and approval decisions; another organization's is 404. */
export async function getStoryDetail(
  db: Db,
  caller: Caller,
  storyId: string,
): Promise<StoryDetailOut> {
  const row = caller.newsroomRunning
    ? await findStoryRow(db, caller.organizationId, storyId)
    : null;
  if (!row) throw notFound("No such story.");
  return storyDetailOf(db, caller.organizationId, row);
}
