import type { KeyScope } from "@newsroom/shared/api-keys";
import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import { answerKey, cachedBody, jsonAnswer } from "../caching/answers.ts";
import { answerRepeatably } from "../caching/repeat-targets.ts";
import { approvalsOperation } from "../contract.ts";
import type { ClientApiDeps } from "../deps.ts";
import { DEFAULT_LIMIT, PageQuery } from "../pagination/model.ts";
import { listApprovalQueue } from "./service.ts";

const SCOPE: KeyScope = "approvals:read";

/** GET /v1/approvals (scope approvals:read). */
export function approvalsRoutes(deps: ClientApiDeps) {
  return new Elysia({ name: "client-api:approvals" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, SCOPE),
    }))
    .get(
      "/v1/approvals",
      ({ query: page, caller, request }) => {
        const limit = page.limit ?? DEFAULT_LIMIT;
        const cursor = page.cursor;
        return answerRepeatably(deps, request, caller, SCOPE, async (caller) => {
          const key = answerKey("approvals", caller, limit, cursor);
          const body = await cachedBody(deps.cache, key, async () =>
            JSON.stringify(
              await listApprovalQueue({ db: deps.db!, cursors: deps.cursors }, caller, {
                limit,
                cursor,
              }),
            ),
          );
          return jsonAnswer(body);
        });
      },
      { query: PageQuery, detail: approvalsOperation },
    );
}
