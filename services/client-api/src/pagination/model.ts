import { explained, QueryInteger } from "@newsroom/shared/parameter-schemas";
import { type Static, Type as T } from "@sinclair/typebox";

/** Page size of client-API lists. */
export const DEFAULT_LIMIT = 25;
export const Limit = QueryInteger({
  minimum: 1,
  maximum: 100,
  default: DEFAULT_LIMIT,
  description: "Page size, 1-100.",
});

/** The previous page's `next_cursor`, passed back unchanged. */
export const Cursor = T.String({
  pattern: "^[A-Za-z0-9_-]{1,200}$",
  maxLength: 200,
  description: "Opaque; the previous page's next_cursor.",
});

export const PageQuery = T.Object({ limit: T.Optional(Limit), cursor: T.Optional(Cursor) });
export type PageQuery = Static<typeof PageQuery>;

export const UuidParam = explained(
  T.String({
    pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
    description: "UUID",
  }),
  () => "Expected a UUID.",
);
