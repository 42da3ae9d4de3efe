import { Elysia, t } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { findOrganization } from "../resolve.ts";
import { findStoryById, findStoryInOrganization, listStoryRecords, statusesOf } from "./lookup.ts";
import { StoryCreateIn, StoryVersionIn, TransitionIn } from "./model.ts";
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
        set.status = 201;
        return addStoryVersion(deps.db, ANY_ORGANIZATION, params.id, body);
      },
      { body: StoryVersionIn },
    )
    .post(
      "/internal/v1/stories/:id/transitions",
      ({ params, body }) =>
        transitionStory(deps.db, ANY_ORGANIZATION, params.id, body, {
          onEvent: deps.kickRelay,
          minLeadSeconds: deps.scheduleMinLeadSeconds,
        }),
      { body: TransitionIn },
    );
}

/** These paths name a story by its id alone: the story is found, and locked, in any organization. */
const ANY_ORGANIZATION = null;
