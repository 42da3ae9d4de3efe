import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import type { ClientApiDeps } from "../deps.ts";
import { PageQuery } from "../pagination/model.ts";
import { readQuery } from "../pagination/query.ts";
import { listApprovalQueue } from "./service.ts";

/** GET /v1/approvals (scope approvals:read). */
export function approvalsRoutes(deps: ClientApiDeps) {
  return new Elysia({ name: "client-api:approvals" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, "approvals:read"),
    }))
    .get("/v1/approvals", ({ request, caller }) =>
      listApprovalQueue(
        { db: deps.db!, cursors: deps.cursors },
        caller,
        readQuery(new URL(request.url), PageQuery),
      ),
    );
}
