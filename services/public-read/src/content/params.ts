import { STORY_TYPES } from "@newsroom/shared/db/schema";
import { refined } from "@newsroom/shared/parameter-schemas";
import { Type as T } from "@sinclair/typebox";
import { isCursor } from "./cursor.ts";

/**
 * The parameter shapes of the spec's "Public news reads", exactly as given. Elysia validates
 * with them, so anything else answers 400 `invalid_parameters` with `error.fields`; a query
 * parameter given twice is refused the same way (the HTTP kit, from these schemas).
 */
export const SLUG_PATTERN = "^[a-z0-9]+(?:-[a-z0-9]+)*$";
export const SITE_PATTERN = "^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$";
export const HOSTNAME_PATTERN = "^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$";
/** The same shape in either case: host names compare case-insensitively. */
const HOSTNAME_ANY_CASE = "^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z]{2,63}$";
export const CURSOR_PATTERN = "^[A-Za-z0-9_-]{1,200}$";

export const StoryTypeParam = T.Union(
  STORY_TYPES.map((type) => T.Literal(type)),
  { description: "Content item type" },
);
export const TopicParam = T.String({ minLength: 1, maxLength: 120, pattern: SLUG_PATTERN });
export const SlugParam = T.String({ minLength: 1, maxLength: 120, pattern: SLUG_PATTERN });
export const CursorParam = T.String({
  minLength: 1,
  maxLength: 200,
  pattern: CURSOR_PATTERN,
  description: "Opaque: the previous page's next_cursor",
});
export const SiteParam = T.String({ minLength: 1, maxLength: 48, pattern: SITE_PATTERN });
export const HostnameParam = T.String({
  minLength: 4,
  maxLength: 253,
  pattern: HOSTNAME_ANY_CASE,
  description: `A host name matching ${HOSTNAME_PATTERN}, compared case-insensitively`,
});

/** A cursor of the right shape that decodes to a position: one this service gave out. */
const PageCursor = refined(
  "PageCursor",
  CursorParam,
  isCursor,
  "Pass back a next_cursor unchanged.",
);

export const IndexQuery = T.Object({
  type: T.Optional(StoryTypeParam),
  topic: T.Optional(TopicParam),
  cursor: T.Optional(PageCursor),
});
export const CursorQuery = T.Object({ cursor: T.Optional(PageCursor) });

export const SlugParams = T.Object({ slug: SlugParam });
export const SiteParams = T.Object({ site: SiteParam });
export const SiteSlugParams = T.Object({ site: SiteParam, slug: SlugParam });
export const HostnameParams = T.Object({ hostname: HostnameParam });
