import { createHash } from "node:crypto";
import { ApiError } from "@newsroom/shared/errors";
import { errorResponse, requestIdOf } from "@newsroom/shared/http";
import type { Answer } from "./answer-cache.ts";

const encoder = new TextEncoder();

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

/** A 200 answer: the body encoded once, its ETag, and the response every request clones. */
export function okAnswer(body: unknown, tags: string[], scope: string | null): Answer {
  const bytes = encoder.encode(JSON.stringify(body));
  const etag = etagOf(bytes);
  const tagList = tags.join(",");
  const response = new Response(bytes, {
    status: 200,
    headers: { ...cacheHeaders(tagList, etag), "content-type": "application/json; charset=utf-8" },
  });
  return { status: 200, response, etag, bytes: bytes.byteLength, tags: tagList, scope };
}

/** A 404 answer; its body is built per request (it names the request id). */
export function notFoundAnswer(message: string, tags: string[], scope: string | null): Answer {
  return { status: 404, message, tags: tags.join(","), scope };
}

function cacheHeaders(tags: string, etag: string): Record<string, string> {
  return { "cache-control": PUBLIC_CACHE_CONTROL, "cache-tag": tags, etag };
}

/** The HTTP answer for a cached (or just read) answer: 200, 304 or 404. */
export function respond(answer: Answer, request: Request): Response {
  if (answer.status === 404) {
    const response = errorResponse(new ApiError("not_found", answer.message), requestIdOf(request));
    response.headers.set("cache-control", NOT_FOUND_CACHE_CONTROL);
    if (answer.tags) response.headers.set("cache-tag", answer.tags);
    return response;
  }
  if (matchesIfNoneMatch(request.headers.get("if-none-match"), answer.etag)) {
    return new Response(null, { status: 304, headers: cacheHeaders(answer.tags, answer.etag) });
  }
  return answer.response.clone();
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
