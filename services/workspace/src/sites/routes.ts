import { Elysia } from "elysia";
import { announceSiteChange } from "../announce.ts";
import type { WorkspaceDeps } from "../deps.ts";
import { findSite } from "../resolve.ts";
import { HostnameIn, hostnameOut, SiteCreateIn, siteOut } from "./model.ts";
import { activateHostname, addHostname, createSite } from "./service.ts";

export function sitesRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .post(
      "/internal/v1/orgs/:org/sites",
      async ({ params, body, set }) => {
        const row = await createSite(deps.db, params.org, body);
        await announceSiteChange(deps.bus, row.organizationId, row.slug);
        set.status = 201;
        return siteOut(row);
      },
      { body: SiteCreateIn },
    )
    .post(
      "/internal/v1/sites/:site/hostnames",
      async ({ params, body, set }) => {
        const site = await findSite(deps.db, params.site);
        const row = await addHostname(deps.db, site.organizationId, site.id, body.hostname);
        set.status = 201;
        return hostnameOut(row);
      },
      { body: HostnameIn },
    )
    .post("/internal/v1/sites/:site/hostnames/:hostname/activate", async ({ params }) => {
      const site = await findSite(deps.db, params.site);
      const row = await activateHostname(deps.db, site.organizationId, site.id, params.hostname);
      await announceSiteChange(deps.bus, row.organizationId, null);
      return hostnameOut(row);
    });
}
