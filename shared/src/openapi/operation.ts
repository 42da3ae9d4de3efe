import type { TSchema } from "@sinclair/typebox";
import type { KeyScope } from "../api-keys.ts";
import { ErrorOut } from "../records.ts";

/**
 * What a route says about itself for the OpenAPI document, next to the schemas that validate it.
 * Routes pass `operation({...})` as Elysia's `detail`; the document builder reads it back.
 */

/** Response headers the spec names; each response lists the ones it carries. */
export type HeaderName =
  | "RateLimit-Policy"
  | "Retry-After"
  | "Cache-Tag"
  | "Cache-Control"
  | "ETag"
  | "WWW-Authenticate"
  | "Location"
  | "Allow"
  | "Deprecation"
  | "Sunset"
  | "Vary"
  | "Last-Modified";

export interface ResponseSpec {
  description: string;
  /** The body's schema; none for empty answers (304, 303). */
  schema?: TSchema;
  /** Default `application/json`. */
  contentType?: string;
  /** Several content types, each with its schema (instead of `schema` and `contentType`). */
  content?: Record<string, TSchema>;
  headers?: HeaderName[];
  example?: unknown;
}

export interface OperationSpec {
  /**
   * The operation's name in generated clients: chosen by hand, camelCase, and never changed once
   * published (a rename breaks every client generated from the document). Every public route
   * has one, and a description; the document builder refuses a route without them.
   */
  operationId?: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The spec's capability status label. */
  status?: "Live" | "Coming";
  /** Client API routes: the key scope needed (bearer authentication). */
  scope?: KeyScope;
  /** Approvals through the API: a person's OAuth access token with this scope (never a key). */
  oauthScope?: "stories:approve";
  /** The query the route reads itself (instead of a `query` schema). */
  query?: TSchema;
  /** Shapes of path parameters the route checks itself (instead of a `params` schema). */
  pathParameters?: Record<string, TSchema>;
  /** The feeds also take the key as `?key=` (a key whose sole scope is feed:read). */
  queryKey?: boolean;
  /** A body read by the route itself (forms): its schema and the content types accepted. */
  requestBody?: { schema: TSchema; contentTypes: string[]; example?: unknown };
  responses: Record<number, ResponseSpec>;
  /** Marks the route as retiring: it answers with `Deprecation` and `Sunset` headers. */
  retiring?: Retiring;
}

export interface Retiring {
  /** When the route was deprecated (RFC 9745 `Deprecation: @<seconds>`). */
  deprecatedAt: Date;
  /** When it stops answering (RFC 8594 `Sunset`, an HTTP date), at least six months later. */
  sunsetAt: Date;
  /** Where the replacement or the announcement is described. */
  link?: string;
}

export const CONTRACT_KEY = "x-contract";

/** The `detail` of an Elysia route: the OpenAPI basics plus the whole spec for the builder. */
export function operation(spec: OperationSpec) {
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    deprecated: spec.retiring ? true : undefined,
    [CONTRACT_KEY]: spec,
  };
}

export function contractOf(detail: unknown): OperationSpec | null {
  const spec = (detail as Record<string, unknown> | undefined)?.[CONTRACT_KEY];
  return spec ? (spec as OperationSpec) : null;
}

/** An error answer: the Error record, with the headers that status carries. */
export function errorAnswer(description: string, headers: HeaderName[] = []): ResponseSpec {
  return { description, schema: ErrorOut, headers };
}

/** The errors every client-API route can give besides its own. */
export const CLIENT_API_ERRORS: Record<number, ResponseSpec> = {
  401: errorAnswer(
    "No key (`missing_api_key`), a malformed, unknown, expired or revoked key (`invalid_api_key`), or a key of the other environment (`wrong_environment`).",
    ["WWW-Authenticate", "Cache-Control"],
  ),
  403: errorAnswer("The key lacks the scope (`insufficient_scope`).", [
    "WWW-Authenticate",
    "Cache-Control",
  ]),
  429: errorAnswer("Over 300 requests in 60 s for the key or 600 a minute for the address.", [
    "Retry-After",
    "Cache-Control",
  ]),
  503: errorAnswer("The client API is not configured here (`api_unavailable`).", [
    "Retry-After",
    "Cache-Control",
  ]),
};

/** The 503 of public content routes. */
export const CONTENT_UNAVAILABLE: ResponseSpec = errorAnswer(
  "Content is not available: no database here, or the read failed.",
  ["Retry-After", "Cache-Control"],
);

/** RFC 9745 and RFC 8594 header values for a retiring route. */
export function retiringHeaders(retiring: Retiring): Record<string, string> {
  const headers: Record<string, string> = {
    deprecation: `@${Math.floor(retiring.deprecatedAt.getTime() / 1000)}`,
    sunset: retiring.sunsetAt.toUTCString(),
  };
  if (retiring.link) headers.link = `<${retiring.link}>; rel="deprecation"`;
  return headers;
}
