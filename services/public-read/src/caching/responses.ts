import { createHash } from "node:crypto";
import { ApiError } from "@newsroom/shared/errors";
import { errorResponse, requestIdOf } from "@newsroom/shared/http";
import type { CachedAnswer } from "./read-cache.ts";

/** What the spec asks of every 200 on a public content route. */
export const PUBLIC_CACHE_CONTROL =
  "public, s-maxage=300, stale-while-revalidate=86400, stale-if-error=604800";
/** A 404 for a missing item or site is cached 60 s. */
export const NOT_FOUND_CACHE_CONTROL = "public, max-age=60, s-maxage=60";
export const RETRY_AFTER_SECONDS = 60;

export function etagOf(body: Uint8Array<ArrayBuffer>): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
}

/** RFC 9110 weak comparison: `*`, or any listed tag equal to ours ignoring `W/`. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const ours = etag.replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === ours);
}

/** The HTTP answer for a cached (or just read) answer: 200, 304 or 404. */
export function respond(answer: Omit<CachedAnswer, "expiresAt">, request: Request): Response {
  const tags = answer.tags.join(",");
  if (answer.status === 404) {
    const message = typeof answer.body === "string" ? answer.body : undefined;
    const response = errorResponse(new ApiError("not_found", message), requestIdOf(request));
    response.headers.set("cache-control", NOT_FOUND_CACHE_CONTROL);
    if (tags) response.headers.set("cache-tag", tags);
    return response;
  }
  const headers: Record<string, string> = {
    "cache-control": PUBLIC_CACHE_CONTROL,
    "cache-tag": tags,
    etag: answer.etag,
  };
  if (matchesIfNoneMatch(request.headers.get("if-none-match"), answer.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(answer.body, {
    status: 200,
    headers: { ...headers, "content-type": "application/json; charset=utf-8" },
  });
}

/** 503: content is not available (no database, or the read failed). Never cached. */
export function unavailable(request: Request): Response {
  return errorResponse(
    new ApiError("content_unavailable", undefined, {
      headers: { "retry-after": String(RETRY_AFTER_SECONDS), "cache-control": "no-store" },
    }),
    requestIdOf(request),
  );
}
