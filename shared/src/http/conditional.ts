/**
 * Conditional GETs (RFC 9110 section 13): `If-None-Match` decides when present; otherwise
 * `If-Modified-Since` does, where the answer knows its `Last-Modified`. A match answers 304 with
 * the answer's caching headers and no body.
 */

/**
 * RFC 9110 weak comparison: `*`, or any listed tag equal to ours ignoring `W/` and the suffix an
 * encoding adds (`"abc-gz"` is `"abc"` compressed: the same content).
 */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const ours = withoutEncoding(etag.replace(/^W\//, ""));
  return header.split(",").some((tag) => withoutEncoding(tag.trim().replace(/^W\//, "")) === ours);
}

import { withoutEncoding } from "./compression.ts";

/** Whether the client's copy is current: 304 instead of the body. */
export function notModified(request: Request, etag: string, lastModified: string | null): boolean {
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch !== null) return matchesIfNoneMatch(ifNoneMatch, etag);
  const ifModifiedSince = request.headers.get("if-modified-since");
  if (!ifModifiedSince || !lastModified) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Date.parse(lastModified) <= since;
}

/** The headers of an answer a 304 repeats (RFC 9110 section 15.4.5), of those we send. */
const NOT_MODIFIED_HEADERS = ["cache-control", "cache-tag", "etag", "last-modified", "vary"];

/** The 304 to a conditional GET for the answer with these headers: its caching headers, no body. */
export function notModifiedResponse(of: Headers): Response {
  const headers = new Headers();
  for (const name of NOT_MODIFIED_HEADERS) {
    const value = of.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(null, { status: 304, headers });
}
