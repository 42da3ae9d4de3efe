import { queryOf } from "./http/urls.ts";

/**
 * The API key a request presents, not yet checked against any record. One reading for the
 * gateway (which counts each key against its limit) and the client API (which authenticates with
 * it), so that both always see the same key.
 */
export type PresentedKey =
  | { ok: true; key: string; source: "header" | "query" }
  | { ok: false; code: "missing_api_key" | "invalid_api_key" };

/** The feeds, where a `key` query parameter may stand in for the header. */
export const QUERY_KEY_PATHS: readonly string[] = ["/v1/feed.json", "/v1/feed.xml"];

/**
 * `Authorization: Bearer <key>`: the scheme is case-insensitive (RFC 9110, section 11.1), and
 * only spaces separate it from the key (RFC 6750, section 2.1).
 */
const BEARER = /^bearer +([^\s]+)$/i;
/** The Bearer scheme, but with other whitespace (a tab, say) between it and the key. */
const MALFORMED_BEARER = /^bearer *[^\S ]/i;

/**
 * Reads the presented key. A `key` query parameter is accepted only where `allowQueryKey`
 * (the feeds), and then it is the credential; anywhere else it is refused outright, and so is
 * more than one.
 */
export function presentedKey(request: Request, allowQueryKey: boolean): PresentedKey {
  const queryKeys = mayNameKey(request.url) ? queryOf(request.url).getAll("key") : [];
  if (queryKeys.length > 0) {
    if (!allowQueryKey || queryKeys.length > 1) return { ok: false, code: "invalid_api_key" };
    return { ok: true, key: queryKeys[0]!, source: "query" };
  }
  // Bun's headers keep no whitespace at either end (RFC 9110's optional whitespace).
  const header = request.headers.get("authorization")?.trim();
  if (!header) return { ok: false, code: "missing_api_key" };
  const match = BEARER.exec(header);
  if (match) return { ok: true, key: match[1]!, source: "header" };
  return { ok: false, code: MALFORMED_BEARER.test(header) ? "invalid_api_key" : "missing_api_key" };
}

/**
 * Whether a URL's query may hold a `key` parameter: it spells `key`, or escapes something
 * (`k%65y`). Most requests have neither, and parsing their query is a cost on every request.
 */
function mayNameKey(url: string): boolean {
  const query = url.indexOf("?");
  return query !== -1 && (url.includes("key", query) || url.includes("%", query));
}
