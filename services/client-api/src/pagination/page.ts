export interface ListPage<Item> {
  object: "list";
  data: Item[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * Splits `limit + 1` fetched rows into the page and whether another exists: the extra row is
 * read only to make `has_more` exact.
 */
export function splitPage<Row>(rows: Row[], limit: number): { rows: Row[]; hasMore: boolean } {
  return rows.length > limit
    ? { rows: rows.slice(0, limit), hasMore: true }
    : { rows, hasMore: false };
}

export function listOf<Item>(
  data: Item[],
  hasMore: boolean,
  nextCursor: () => string,
): ListPage<Item> {
  return {
    object: "list",
    data,
    has_more: hasMore,
    next_cursor: hasMore && data.length > 0 ? nextCursor() : null,
  };
}

/** The empty list (an organization whose newsroom is not running). */
export function emptyList<Item>(): ListPage<Item> {
  return { object: "list", data: [], has_more: false, next_cursor: null };
}
