/**
 * A list answer of the internal API, in the shape of the client API's lists. The internal lists
 * are short (an organization's keys, endpoints, members, its latest stories and deliveries), so
 * they come in one page.
 */
export function listOf<T>(data: T[]) {
  return { object: "list" as const, data, has_more: false, next_cursor: null };
}
