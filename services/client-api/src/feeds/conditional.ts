import { matchesIfNoneMatch } from "@newsroom/shared/http/conditional";

/**
 * Conditional feed requests: feed readers poll, so a feed carries an `ETag` and answers a
 * matching `If-None-Match` with 304 and no body. The tag is computed after the key is checked,
 * from the key's organization and the exact body it would get: a tag of one organization never
 * matches another's feed, and a 304 only ever confirms what the same caller could read anyway.
 * `Cache-Control: private, no-cache` lets the reader keep its copy but revalidate every time.
 */
const FEED_CACHE_CONTROL = "private, no-cache";

export function feedEtag(organizationId: string, body: string): string {
  const hash = new Bun.CryptoHasher("sha256").update(organizationId).update("\n").update(body);
  return `"${hash.digest("base64url").slice(0, 32)}"`;
}

export function feedResponse(
  request: Request,
  organizationId: string,
  body: string,
  contentType: string,
): Response {
  const etag = feedEtag(organizationId, body);
  const headers = {
    etag,
    "cache-control": FEED_CACHE_CONTROL,
    // The key may come in the Authorization header: one URL, a different feed per key.
    vary: "Authorization",
  };
  if (matchesIfNoneMatch(request.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { headers: { ...headers, "content-type": contentType } });
}
