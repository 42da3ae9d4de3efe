import { StoryTypeSchema } from "@newsroom/shared/records";
import { StoryBody } from "@newsroom/shared/story-body";
import { t } from "elysia";
import { ACTIONS } from "./state-machine.ts";

const Slug = t.String({ minLength: 1, maxLength: 120, pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" });

/** The story's own fields, given when it is created and changed with a new version. */
const storyFields = {
  topics: t.Optional(t.Array(Slug, { maxItems: 20, uniqueItems: true })),
  external_url: t.Optional(
    t.Union([t.String({ pattern: "^https?://", maxLength: 2048 }), t.Null()]),
  ),
  featured: t.Optional(t.Boolean()),
};

export const StoryCreateIn = t.Object({
  type: StoryTypeSchema,
  slug: Slug,
  title: t.String({ minLength: 1, maxLength: 300 }),
  summary: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Null()])),
  body: t.Optional(StoryBody),
  ...storyFields,
  status: t.Optional(t.Union([t.Literal("draft"), t.Literal("ai_generated")])),
});

export const StoryVersionIn = t.Object({
  title: t.String({ minLength: 1, maxLength: 300 }),
  summary: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Null()])),
  body: t.Optional(StoryBody),
  base_version: t.Optional(t.Integer({ minimum: 1 })),
  ...storyFields,
});

export const TransitionIn = t.Object({
  action: t.Union(ACTIONS.map((action) => t.Literal(action))),
  note: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()])),
  actor_role: t.Optional(t.String({ minLength: 1, maxLength: 40 })),
  publish_at: t.Optional(
    t.Union([
      t.String({ maxLength: 64, description: "schedule only: ISO 8601 with an offset" }),
      t.Null(),
    ]),
  ),
});
