import type { KeyScope } from "@newsroom/shared/api-keys";
import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import { answerKey, cachedBody, jsonAnswer } from "../caching/answers.ts";
import { answerRepeatably } from "../caching/repeat-targets.ts";
import { getStoryOperation, listStoriesOperation } from "../contract.ts";
import type { ClientApiDeps } from "../deps.ts";
import { DEFAULT_LIMIT } from "../pagination/model.ts";
import { parseStatuses, StoryListQuery, StoryParams } from "./model.ts";
import { getStoryDetail, listStories } from "./service.ts";

const SCOPE: KeyScope = "stories:read";

/** GET /v1/stories and GET /v1/stories/{id} (scope stories:read). */
export function storiesRoutes(deps: ClientApiDeps) {
  return new Elysia({ name: "client-api:stories" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, SCOPE),
    }))
    .get(
      "/v1/stories",
      ({ query, caller, request }) => {
        const statuses = parseStatuses(query.status);
        const limit = query.limit ?? DEFAULT_LIMIT;
        const cursor = query.cursor;
        return answerRepeatably(deps, request, caller, SCOPE, async (caller) => {
          const key = answerKey(
            "stories",
            caller,
            statuses ? [...statuses].sort().join(",") : undefined,
            limit,
            cursor,
          );
          const body = await cachedBody(deps.cache, key, async () =>
            JSON.stringify(
              await listStories({ db: deps.db!, cursors: deps.cursors }, caller, {
                statuses,
                limit,
                cursor,
              }),
            ),
          );
          return jsonAnswer(body);
        });
      },
      { query: StoryListQuery, detail: listStoriesOperation },
    )
    .get(
      "/v1/stories/:id",
      ({ params, caller, request }) => {
        const id = params.id.toLowerCase();
        return answerRepeatably(deps, request, caller, SCOPE, async (caller) => {
          const body = await cachedBody(deps.cache, answerKey("story", caller, id), async () =>
            JSON.stringify(await getStoryDetail(deps.db!, caller, id)),
          );
          return jsonAnswer(body);
        });
      },
      { params: StoryParams, detail: getStoryOperation },
    );
}
