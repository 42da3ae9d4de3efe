import type { ReadCache } from "@newsroom/shared/read-cache";
import type { Caller } from "../auth/service.ts";

/** The content type Elysia gives a JSON answer; cached answers carry the same. */
export const JSON_TYPE = "application/json;charset=utf-8";

/** The client API's cache: answers as the text sent. */
export type AnswerCache = ReadCache<string>;

/**
 * The cache key of an answer: the route, the organization and its data version as read with
 * the key on this request, then the request's parameters after validation and normalization
 * (defaults filled in, sets sorted), so that equal requests share one entry. A change to the
 * organization's data moves its version (in the same transaction), so an answer read before
 * the change is never found again: entries of older versions age out of the LRU.
 */
export function answerKey(
  route: string,
  caller: Pick<Caller, "organizationId" | "dataVersion">,
  ...parts: (string | number | undefined)[]
): string {
  return [
    route,
    caller.organizationId,
    caller.dataVersion,
    ...parts.map((part) => part ?? ""),
  ].join("\n");
}

/**
 * An answer's body: the cached one, or what `render` makes (kept when there is a cache).
 * Errors are never kept.
 */
export function cachedBody(
  cache: AnswerCache | undefined,
  key: string,
  render: () => Promise<string>,
): Promise<string> {
  if (!cache) return render();
  return cache.through(key, render);
}

export function jsonAnswer(body: string): Response {
  return new Response(body, { headers: { "content-type": JSON_TYPE } });
}
