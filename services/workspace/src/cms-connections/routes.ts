import {
  CmsConnectionCreateIn,
  CmsConnectionUpdateIn,
} from "@newsroom/shared/cms-connection-commands";
import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { findOrganization } from "../resolve.ts";
import { findStoryById } from "../stories/lookup.ts";
import {
  checkConnection,
  connectionOrganization,
  createConnection,
  deleteConnection,
  getConnection,
  listConnections,
  storyCmsWrites,
  updateConnection,
} from "./commands.ts";

/**
 * Internal API: an organization's CMS connections (WordPress, Ghost): list, add, change (enabled,
 * unpublish mode), check, delete; and a story's writes into them. Each is a command to the
 * webhooks service (see commands.ts); the workspace audits what succeeded.
 */
export function cmsConnectionsRoutes(deps: WorkspaceDeps) {
  const orgId = async (idOrSlug: string) => (await findOrganization(deps.db, idOrSlug)).id;
  return new Elysia()
    .get("/internal/v1/orgs/:org/cms_connections", async ({ params }) =>
      listOf(await listConnections(deps, await orgId(params.org))),
    )
    .post(
      "/internal/v1/orgs/:org/cms_connections",
      async ({ params, body, set }) => {
        const created = await createConnection(deps, await orgId(params.org), body);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return created;
      },
      { body: CmsConnectionCreateIn },
    )
    .get("/internal/v1/cms_connections/:id", async ({ params }) =>
      getConnection(deps, await connectionOrganization(deps.db, params.id), params.id),
    )
    .patch(
      "/internal/v1/cms_connections/:id",
      async ({ params, body }) =>
        updateConnection(deps, await connectionOrganization(deps.db, params.id), params.id, body),
      { body: CmsConnectionUpdateIn },
    )
    .delete("/internal/v1/cms_connections/:id", async ({ params }) =>
      deleteConnection(deps, await connectionOrganization(deps.db, params.id), params.id),
    )
    .post("/internal/v1/cms_connections/:id/check", async ({ params }) =>
      checkConnection(deps, await connectionOrganization(deps.db, params.id), params.id),
    )
    .get("/internal/v1/stories/:id/cms_writes", async ({ params }) => {
      const story = await findStoryById(deps.db, params.id);
      return listOf(await storyCmsWrites(deps, story.organization_id, story.id));
    });
}
