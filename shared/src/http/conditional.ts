/**
 * Conditional GETs (RFC 9110 section 13): `If-None-Match` decides when present; otherwise
 * `If-Modified-Since` does, where the answer knows its `Last-Modified`. A match answers 304 with
 * the answer's caching headers and no body.
 */

/** RFC 9110 weak comparison: `*`, or any listed tag equal to ours ignoring `W/`. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const ours = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === ours);
}

/** Whether the client's copy is current: 304 instead of the body. */
export function notModified(request: Request, etag: string, lastModified: string | null): boolean {
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch !== null) return matchesIfNoneMatch(ifNoneMatch, etag);
  const ifModifiedSince = request.headers.get("if-modified-since");
  if (!ifModifiedSince || !lastModified) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Date.parse(lastModified) <= since;
}
