/**
 * Conditional GETs of public answers (RFC 9110 section 13): a strong `ETag` from the exact bytes
 * and, where the answer knows it, `Last-Modified` (the newest change it shows). `If-None-Match`
 * decides when present; otherwise `If-Modified-Since` does. A match answers 304 with the same
 * caching headers and no body.
 */

/** RFC 9110 weak comparison: `*`, or any listed tag equal to ours ignoring `W/`. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const ours = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === ours);
}

/** An HTTP date (IMF-fixdate), to the second as the format allows. */
export function httpDate(date: Date): string {
  return date.toUTCString();
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

/** The newest `updated_at` of what an answer shows (its Last-Modified), or null for nothing. */
export function newestChange(shown: { updated_at: string }[]): Date | null {
  let newest: number | null = null;
  for (const { updated_at } of shown) {
    const at = Date.parse(updated_at);
    if (newest === null || at > newest) newest = at;
  }
  return newest === null ? null : new Date(newest);
}
