import { createHash } from "node:crypto";
import { ApiError } from "@newsroom/shared/errors";
import { Html } from "@newsroom/shared/html";
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

const HTML_TYPE = "text/html; charset=utf-8";

/**
 * A 200 answer: the body encoded once, its ETag, and the response every request clones. A body
 * that is `Html` (a page) is sent as HTML, anything else as JSON.
 */
export function okAnswer(body: unknown, tags: string[], scope: string | null): Answer {
  const page = body instanceof Html;
  const bytes = encoder.encode(page ? body.value : JSON.stringify(body));
  const etag = etagOf(bytes);
  const tagList = tags.join(",");
  const response = new Response(bytes, {
    status: 200,
    headers: {
      ...cacheHeaders(tagList, etag),
      "content-type": page ? HTML_TYPE : "application/json; charset=utf-8",
    },
  });
  return { status: 200, response, etag, bytes: bytes.byteLength, tags: tagList, scope };
}

/**
 * A 404 answer; its JSON body is built per request (it names the request id). A page's 404 is
 * its not-found page.
 */
export function notFoundAnswer(
  message: string,
  tags: string[],
  scope: string | null,
  page?: Html,
): Answer {
  return { status: 404, message, page: page?.value, tags: tags.join(","), scope };
}

/** A page's 404, cached like the JSON one. */
export function notFoundPageResponse(page: string, tags: string): Response {
  const headers: Record<string, string> = {
    "content-type": HTML_TYPE,
    "cache-control": NOT_FOUND_CACHE_CONTROL,
  };
  if (tags) headers["cache-tag"] = tags;
  return new Response(page, { status: 404, headers });
}

function cacheHeaders(tags: string, etag: string): Record<string, string> {
  return { "cache-control": PUBLIC_CACHE_CONTROL, "cache-tag": tags, etag };
}

/** The HTTP answer for a cached (or just read) answer: 200, 304 or 404. */
export function respond(answer: Answer, request: Request): Response {
  if (answer.status === 404) {
    if (answer.page !== undefined) return notFoundPageResponse(answer.page, answer.tags);
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
