import type { ReadCache } from "./read-cache.ts";

/** The content type Elysia gives a JSON answer; cached answers carry the same. */
export const JSON_TYPE = "application/json;charset=utf-8";

/**
 * The cache key of an answer: the route, the organization, then the request's parameters after
 * validation and normalization (defaults filled in, sets sorted), so that equal requests share
 * one entry.
 */
export function answerKey(
  route: string,
  organizationId: string,
  ...parts: (string | number | undefined)[]
): string {
  return [route, organizationId, ...parts.map((part) => part ?? "")].join("\n");
}

/**
 * An answer's body: the cached one, or what `render` makes (kept for the organization when
 * there is a cache). Errors are never kept.
 */
export function cachedBody(
  cache: ReadCache | undefined,
  organizationId: string,
  key: string,
  render: () => Promise<string>,
): Promise<string> {
  if (!cache) return render();
  return cache.through(key, render, () => organizationId);
}

export function jsonAnswer(body: string): Response {
  return new Response(body, { headers: { "content-type": JSON_TYPE } });
}
