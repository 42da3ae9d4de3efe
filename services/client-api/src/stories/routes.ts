import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import type { ClientApiDeps } from "../deps.ts";
import { readQuery, readUuid } from "../pagination/query.ts";
import { explainStatus, parseStatuses, StoryListQuery } from "./model.ts";
import { getStoryDetail, listStories } from "./service.ts";

/** GET /v1/stories and GET /v1/stories/{id} (scope stories:read). */
export function storiesRoutes(deps: ClientApiDeps) {
  return new Elysia({ name: "client-api:stories" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, "stories:read"),
    }))
    .get("/v1/stories", ({ request, caller }) => {
      const query = readQuery(new URL(request.url), StoryListQuery, { status: explainStatus });
      return listStories({ db: deps.db!, cursors: deps.cursors }, caller, {
        statuses: parseStatuses(query.status),
        limit: query.limit,
        cursor: query.cursor,
      });
    })
    .get("/v1/stories/:id", ({ params, caller }) =>
      getStoryDetail(deps.db!, caller, readUuid("id", params.id)),
    );
}
