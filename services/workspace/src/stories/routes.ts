import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { StoryCreateIn, StoryVersionIn, TransitionIn } from "./model.ts";
import { addStoryVersion, createStory, transitionStory } from "./service.ts";

export function storyRoutes(deps: WorkspaceDeps) {
  return new Elysia()
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
        return addStoryVersion(deps.db, params.id, body);
      },
      { body: StoryVersionIn },
    )
    .post(
      "/internal/v1/stories/:id/transitions",
      ({ params, body }) => transitionStory(deps.db, params.id, body, { onEvent: deps.kickRelay }),
      { body: TransitionIn },
    );
}
