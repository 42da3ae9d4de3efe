import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import { answerKey, cachedBody, jsonAnswer } from "../caching/answers.ts";
import { approvalsOperation } from "../contract.ts";
import type { ClientApiDeps } from "../deps.ts";
import { DEFAULT_LIMIT, PageQuery } from "../pagination/model.ts";
import { listApprovalQueue } from "./service.ts";

/** GET /v1/approvals (scope approvals:read). */
export function approvalsRoutes(deps: ClientApiDeps) {
  return new Elysia({ name: "client-api:approvals" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, "approvals:read"),
    }))
    .get(
      "/v1/approvals",
      async ({ query: page, caller }) => {
        const limit = page.limit ?? DEFAULT_LIMIT;
        const key = answerKey("approvals", caller, limit, page.cursor);
        const body = await cachedBody(deps.cache, key, async () =>
          JSON.stringify(
            await listApprovalQueue({ db: deps.db!, cursors: deps.cursors }, caller, {
              limit,
              cursor: page.cursor,
            }),
          ),
        );
        return jsonAnswer(body);
      },
      { query: PageQuery, detail: approvalsOperation },
    );
}
