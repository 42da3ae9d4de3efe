import { notModified, notModifiedResponse } from "@newsroom/shared/http/conditional";

/**
 * Conditional feed requests: feed readers poll, so a feed carries an `ETag` and a
 * `Last-Modified`, and answers a matching `If-None-Match` (or, without one, an
 * `If-Modified-Since` no older than its last change) with 304 and no body, as the newsroom feeds
 * do. The tag is computed after the key is checked, from the key's organization and the exact
 * body it would get: a tag of one organization never matches another's feed, and a 304 only ever
 * confirms what the same caller could read anyway. `Cache-Control: private, no-cache` lets the
 * reader keep its copy but revalidate every time.
 */
const FEED_CACHE_CONTROL = "private, no-cache";
/** The key may come in the Authorization header: one URL, a different feed per key. */
const FEED_VARY = "Authorization";

export function feedEtag(organizationId: string, body: string): string {
  const hash = new Bun.CryptoHasher("sha256").update(organizationId).update("\n").update(body);
  return `"${hash.digest("base64url").slice(0, 32)}"`;
}

/** A rendered feed: its body and its last change (an HTTP date), or null for an empty feed. */
export interface RenderedFeed {
  body: string;
  lastModified: string | null;
}

/** The answer cache keeps text: the last change on the first line, then the body. */
export function packFeed(feed: RenderedFeed): string {
  return `${feed.lastModified ?? ""}\n${feed.body}`;
}

export function unpackFeed(packed: string): RenderedFeed {
  const end = packed.indexOf("\n");
  return { lastModified: packed.slice(0, end) || null, body: packed.slice(end + 1) };
}

export function feedResponse(
  request: Request,
  organizationId: string,
  feed: RenderedFeed,
  contentType: string,
): Response {
  const etag = feedEtag(organizationId, feed.body);
  const headers: Record<string, string> = {
    etag,
    "cache-control": FEED_CACHE_CONTROL,
    vary: FEED_VARY,
  };
  if (feed.lastModified) headers["last-modified"] = feed.lastModified;
  if (notModified(request, etag, feed.lastModified)) {
    const response = notModifiedResponse(new Headers(headers));
    // A 304 says what the 200 would vary on (RFC 9110 section 15.4.5).
    response.headers.set("vary", FEED_VARY);
    return response;
  }
  return new Response(feed.body, { headers: { ...headers, "content-type": contentType } });
}
