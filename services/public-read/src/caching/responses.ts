import { createHash } from "node:crypto";
import { JSON_CONTENT_TYPE } from "@newsroom/shared/content-types";
import { ApiError } from "@newsroom/shared/errors";
import { Html } from "@newsroom/shared/html";
import { notModified, notModifiedResponse } from "@newsroom/shared/http/conditional";
import { errorResponse } from "@newsroom/shared/http/error-response";
import { ANSWER_ORGANIZATION_HEADER } from "@newsroom/shared/http/public-answers";
import { requestIdOf } from "@newsroom/shared/http/request-context";
import { httpDate } from "./conditional.ts";
import { TextDocument } from "./text-document.ts";

const encoder = new TextEncoder();

/** What the spec asks of every 200 on a public content route. */
export const PUBLIC_CACHE_CONTROL =
  "public, s-maxage=300, stale-while-revalidate=86400, stale-if-error=604800";
/**
 * A page's: the same for shared caches, but a browser asks again each time (`max-age=0`) rather
 * than reusing it for a while from its `Last-Modified` (an unpublished story would stay on a
 * reader's screen).
 */
export const PAGE_CACHE_CONTROL =
  "public, max-age=0, s-maxage=300, stale-while-revalidate=86400, stale-if-error=604800";
/**
 * What every answer of public reads says to a browser, as the workspace does: no type sniffing,
 * the origin alone as referrer to other sites, never framed.
 */
export const PUBLIC_ANSWER_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-frame-options": "DENY",
};
/** A 404 for a missing item or site is cached 60 s. */
export const NOT_FOUND_CACHE_CONTROL = "public, max-age=60, s-maxage=60";
export const RETRY_AFTER_SECONDS = 60;

export function etagOf(body: Uint8Array<ArrayBuffer>): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
}

const HTML_TYPE = "text/html; charset=utf-8";

/** A read's answer, before it meets the request: 200 (or 304) or 404. */
export type Answer = (
  | {
      status: 200;
      /** The whole answer, headers and body. */
      response: Response;
      etag: string;
      /** The Last-Modified value (an HTTP date), or null when the answer does not know it. */
      lastModified: string | null;
    }
  | {
      status: 404;
      message: string;
      /** A page's 404: its HTML, sent instead of the JSON error. */
      page?: string;
    }
) & {
  /** The Cache-Tag value: the purge keys, comma-separated. */
  tags: string;
  /** The organization whose content this is, or null. */
  scope: string | null;
};

/** What an answer may add to its headers. */
export interface AnswerExtras {
  /** The newest change it shows: `Last-Modified`, and `If-Modified-Since` answered. */
  lastModified?: Date | null;
  /** A site that is not live: `X-Robots-Tag: noindex`. */
  noindex?: boolean;
}

/**
 * A 200 answer: the body encoded, its ETag, and the response. A body
 * that is `Html` (a page) is sent as HTML, a `TextDocument` as its own type, anything else as
 * JSON.
 */
export function okAnswer(
  body: unknown,
  tags: string[],
  scope: string | null,
  extras: AnswerExtras = {},
): Answer {
  const page = body instanceof Html;
  const document = body instanceof TextDocument;
  const bytes = encoder.encode(page ? body.value : document ? body.text : JSON.stringify(body));
  const etag = etagOf(bytes);
  const tagList = [...new Set(tags)].join(",");
  const lastModified = extras.lastModified ? httpDate(extras.lastModified) : null;
  const headers: Record<string, string> = {
    ...cacheHeaders(page ? PAGE_CACHE_CONTROL : PUBLIC_CACHE_CONTROL, tagList, etag, lastModified),
    "content-type": document ? body.contentType : page ? HTML_TYPE : JSON_CONTENT_TYPE,
  };
  if (extras.noindex) headers["x-robots-tag"] = "noindex";
  if (scope) headers[ANSWER_ORGANIZATION_HEADER] = scope;
  const response = new Response(bytes, { status: 200, headers });
  return { status: 200, response, etag, lastModified, tags: tagList, scope };
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
  return { status: 404, message, page: page?.value, tags: [...new Set(tags)].join(","), scope };
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

function cacheHeaders(
  cacheControl: string,
  tags: string,
  etag: string,
  lastModified: string | null,
): Record<string, string> {
  const headers: Record<string, string> = {
    "cache-control": cacheControl,
    "cache-tag": tags,
    etag,
  };
  if (lastModified) headers["last-modified"] = lastModified;
  return headers;
}

/** The HTTP answer for a read's answer: 200, 304 or 404. */
export function respond(answer: Answer, request: Request): Response {
  if (answer.status === 404) {
    if (answer.page !== undefined) return notFoundPageResponse(answer.page, answer.tags);
    const response = errorResponse(new ApiError("not_found", answer.message), requestIdOf(request));
    response.headers.set("cache-control", NOT_FOUND_CACHE_CONTROL);
    if (answer.tags) response.headers.set("cache-tag", answer.tags);
    return response;
  }
  if (notModified(request, answer.etag, answer.lastModified)) {
    return notModifiedResponse(answer.response.headers);
  }
  return answer.response;
}

/** A page's 503: its HTML, with the JSON 503's Retry-After and never cached. */
export function unavailablePageResponse(page: string): Response {
  return new Response(page, {
    status: 503,
    headers: {
      "content-type": HTML_TYPE,
      "retry-after": String(RETRY_AFTER_SECONDS),
      "cache-control": "no-store",
    },
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
