import { ApiError } from "@newsroom/shared/errors";
import { Elysia, t } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { findOrganization } from "../resolve.ts";
import { findStoryById, findStoryInOrganization, listStoryRecords, statusesOf } from "./lookup.ts";
import { StoryCreateIn, StoryVersionIn, TransitionIn } from "./model.ts";
import { organizationOfStory } from "./queries.ts";
import { addStoryVersion, createStory, transitionStory } from "./service.ts";

export function storiesRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .get(
      "/internal/v1/orgs/:org/stories",
      async ({ params, query }) => {
        const org = await findOrganization(deps.db, params.org);
        return listOf(await listStoryRecords(deps.db, org.id, statusesOf(query.status)));
      },
      { query: t.Object({ status: t.Optional(t.String({ maxLength: 300 })) }) },
    )
    .get("/internal/v1/orgs/:org/stories/:story", async ({ params }) => {
      const org = await findOrganization(deps.db, params.org);
      return findStoryInOrganization(deps.db, org.id, params.story);
    })
    .get("/internal/v1/stories/:id", ({ params }) => findStoryById(deps.db, params.id))
    .post(
      "/internal/v1/orgs/:org/stories",
      async ({ params, body, set }) => {
        set.status = 201;
        return createStory(deps.db, params.org, body);
      },
      { body: StoryCreateIn },
    )
    .post(
      "/internal/v1/stories/:id/versions",
      async ({ params, body, set }) => {
        const organizationId = await organizationOf(deps, params.id);
        set.status = 201;
        return addStoryVersion(deps.db, organizationId, params.id, body);
      },
      { body: StoryVersionIn },
    )
    .post(
      "/internal/v1/stories/:id/transitions",
      async ({ params, body }) => {
        const organizationId = await organizationOf(deps, params.id);
        return transitionStory(deps.db, organizationId, params.id, body, {
          onEvent: deps.kickRelay,
          minLeadSeconds: deps.scheduleMinLeadSeconds,
        });
      },
      { body: TransitionIn },
    );
}

/** The organization of a story its path names by id alone; 404 when there is none. */
async function organizationOf(deps: WorkspaceDeps, storyId: string): Promise<string> {
  const organizationId = await organizationOfStory(deps.db, storyId);
  if (!organizationId) throw new ApiError("not_found", "No such story.");
  return organizationId;
}
