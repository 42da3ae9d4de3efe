import { Elysia } from "elysia";
import { announceSiteChange } from "../announce.ts";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { findOrganization } from "../resolve.ts";
import { OrganizationCreateIn, OrganizationUpdateIn, organizationOut } from "./model.ts";
import { createOrganization, listOrganizations, updateOrganization } from "./service.ts";

export function organizationsRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .post(
      "/internal/v1/orgs",
      async ({ body, set }) => {
        set.status = 201;
        return organizationOut(await createOrganization(deps.db, body));
      },
      { body: OrganizationCreateIn },
    )
    .get("/internal/v1/orgs", async () =>
      listOf((await listOrganizations(deps.db)).map(organizationOut)),
    )
    .get("/internal/v1/orgs/:org", async ({ params }) =>
      organizationOut(await findOrganization(deps.db, params.org)),
    )
    .patch(
      "/internal/v1/orgs/:org",
      async ({ params, body }) => {
        const row = await updateOrganization(deps.db, params.org, body, deps.serviceEnv);
        await announceSiteChange(deps.bus, row.id, null);
        return organizationOut(row);
      },
      { body: OrganizationUpdateIn },
    );
}
