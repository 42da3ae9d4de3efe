import { STORY_STATUSES, type StoryStatus } from "@newsroom/shared/db/schema";
import { explained } from "@newsroom/shared/parameter-schemas";
import { type Static, Type as T } from "@sinclair/typebox";
import { Cursor, Limit, UuidParam } from "../pagination/model.ts";

const ONE_STATUS = `(?:${STORY_STATUSES.join("|")})`;

/** `status`: a comma-separated subset of the story statuses; a bad one names the unknown values. */
export const StatusFilter = explained(
  T.String({
    maxLength: 200,
    pattern: `^${ONE_STATUS}(?:,${ONE_STATUS})*$`,
    description: `Comma-separated subset of: ${STORY_STATUSES.join(", ")}.`,
  }),
  (given) => explainStatus(String(given)),
);

export const StoryListQuery = T.Object({
  status: T.Optional(StatusFilter),
  limit: T.Optional(Limit),
  cursor: T.Optional(Cursor),
});
export type StoryListQuery = Static<typeof StoryListQuery>;

export const StoryParams = T.Object({ id: UuidParam });

/** Explains a bad `status` by naming the values that are not statuses. */
export function explainStatus(given: string): string {
  if (given.length > 200) return "At most 200 characters.";
  const unknown = given
    .split(",")
    .filter((value) => !(STORY_STATUSES as readonly string[]).includes(value));
  return unknown.length > 0
    ? `Unknown status ${unknown.map((u) => JSON.stringify(u)).join(", ")}. Use a comma-separated subset of: ${STORY_STATUSES.join(", ")}.`
    : "Use a comma-separated subset of the story statuses.";
}

export function parseStatuses(filter: string | undefined): StoryStatus[] | undefined {
  return filter ? [...new Set(filter.split(",") as StoryStatus[])] : undefined;
}
