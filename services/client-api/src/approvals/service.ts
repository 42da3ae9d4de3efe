import type { Db } from "@newsroom/shared/db/index";
import type { StoryOut } from "@newsroom/shared/records";
import type { Caller } from "../auth/service.ts";
import type { CursorCodec } from "../pagination/cursor.ts";
import type { ListPage } from "../pagination/page.ts";
import { listStories } from "../stories/service.ts";

/** The approval queue: stories in `review_required`, newest change first. */
export function listApprovalQueue(
  deps: { db: Db; cursors: CursorCodec },
  caller: Caller,
  page: { limit?: number; cursor?: string },
): Promise<ListPage<StoryOut>> {
  return listStories(deps, caller, { ...page, statuses: ["review_required"] }, "approvals");
}
