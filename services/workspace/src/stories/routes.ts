import { Elysia } from "elysia";
import { announceDataChange } from "../announce.ts";
import type { WorkspaceDeps } from "../deps.ts";
import { StoryCreateIn, StoryVersionIn, TransitionIn } from "./model.ts";
import { addStoryVersion, createStory, transitionStory } from "./service.ts";

export function storyRoutes(deps: WorkspaceDeps) {
  const onChange = (organizationId: string) =>
    announceDataChange(deps.bus, organizationId, "stories");
  return new Elysia()
    .post(
      "/internal/v1/orgs/:org/stories",
      async ({ params, body, set }) => {
        set.status = 201;
        return createStory(deps.db, params.org, body, onChange);
      },
      { body: StoryCreateIn },
    )
    .post(
      "/internal/v1/stories/:id/versions",
      async ({ params, body, set }) => {
        set.status = 201;
        return addStoryVersion(deps.db, params.id, body, onChange);
      },
      { body: StoryVersionIn },
    )
    .post(
      "/internal/v1/stories/:id/transitions",
      ({ params, body }) =>
        transitionStory(deps.db, params.id, body, { onEvent: deps.kickRelay, onChange }),
      { body: TransitionIn },
    );
}
