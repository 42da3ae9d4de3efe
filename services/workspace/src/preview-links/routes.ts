import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { findOrganization } from "../resolve.ts";
import { organizationOfStory } from "../stories/queries.ts";
import { PreviewLinkCreateIn, previewLinkOut } from "./model.ts";
import {
  createPreviewLink,
  listPreviewLinks,
  organizationOfPreviewLink,
  revokePreviewLink,
} from "./service.ts";

export function previewLinksRoutes(deps: WorkspaceDeps) {
  /** The organization of a record its path names by id alone; 404 when there is none. */
  const organizationOf = async (id: string, find: typeof organizationOfStory, what: string) => {
    const organizationId = await find(deps.db, id);
    if (!organizationId) throw new ApiError("not_found", `No such ${what}.`);
    return findOrganization(deps.db, organizationId);
  };
  return new Elysia()
    .get("/internal/v1/stories/:id/preview_links", async ({ params }) => {
      const org = await organizationOf(params.id, organizationOfStory, "story");
      return listOf((await listPreviewLinks(deps.db, org.id, params.id)).map(previewLinkOut));
    })
    .post(
      "/internal/v1/stories/:id/preview_links",
      async ({ params, body, set }) => {
        const org = await organizationOf(params.id, organizationOfStory, "story");
        const { row, url } = await createPreviewLink(deps.db, deps.addresses, org, params.id, body);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { ...previewLinkOut(row), url };
      },
      { body: PreviewLinkCreateIn },
    )
    .post("/internal/v1/preview_links/:id/revoke", async ({ params }) => {
      const org = await organizationOf(params.id, organizationOfPreviewLink, "preview link");
      return previewLinkOut(await revokePreviewLink(deps.db, org.id, params.id));
    });
}
