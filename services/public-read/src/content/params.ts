import { STORY_TYPES } from "@newsroom/shared/db/schema";
import { invalidParameters } from "@newsroom/shared/errors";
import { Type as T } from "@sinclair/typebox";

/**
 * The parameter shapes of the spec's "Public news reads", exactly as given. Elysia validates
 * with them, so anything else answers 400 `invalid_parameters` with `error.fields`.
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

export const IndexQuery = T.Object({
  type: T.Optional(StoryTypeParam),
  topic: T.Optional(TopicParam),
  cursor: T.Optional(CursorParam),
});
export const CursorQuery = T.Object({ cursor: T.Optional(CursorParam) });

export const SlugParams = T.Object({ slug: SlugParam });
export const SiteParams = T.Object({ site: SiteParam });
export const SiteSlugParams = T.Object({ site: SiteParam, slug: SlugParam });
export const HostnameParams = T.Object({ hostname: HostnameParam });

/**
 * A parameter given twice (`?type=a&type=b`) is ambiguous: 400 instead of picking one.
 */
export function rejectRepeated(request: Request, names: readonly string[]): void {
  const at = request.url.indexOf("?");
  if (at === -1) return;
  const search = new URLSearchParams(request.url.slice(at + 1));
  const fields = names
    .filter((name) => search.getAll(name).length > 1)
    .map((field) => ({ field, reason: "repeated", message: "Give this parameter once." }));
  if (fields.length > 0) throw invalidParameters(fields);
}
