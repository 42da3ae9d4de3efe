import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { listApiKeys } from "./list.ts";
import { apiKeyOut, KeyCreateIn } from "./model.ts";
import { createApiKey, organizationOfApiKey, revokeApiKey } from "./service.ts";

export function keysRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .get("/internal/v1/orgs/:org/keys", async ({ params }) =>
      listOf((await listApiKeys(deps.db, params.org)).map(apiKeyOut)),
    )
    .post(
      "/internal/v1/orgs/:org/keys",
      async ({ params, body, set }) => {
        const { row, secret } = await createApiKey(deps.db, params.org, body, deps.serviceEnv);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { ...apiKeyOut(row), secret };
      },
      { body: KeyCreateIn },
    )
    .post("/internal/v1/keys/:id/revoke", async ({ params }) => {
      // The path names the key alone: its organization first, then the revocation in it.
      const organizationId = await organizationOfApiKey(deps.db, params.id);
      if (!organizationId) throw new ApiError("not_found", "No such key.");
      return apiKeyOut(await revokeApiKey(deps.db, organizationId, params.id));
    });
}
