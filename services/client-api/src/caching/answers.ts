import type { KeyScope } from "@newsroom/shared/api-keys";
import { JSON_CONTENT_TYPE } from "@newsroom/shared/content-types";
import { KnownTargets } from "@newsroom/shared/http/known-targets";
import type { ReadCache } from "@newsroom/shared/read-cache";
import type { Caller } from "../auth/service.ts";

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
  return new Response(body, { headers: { "content-type": JSON_CONTENT_TYPE } });
}

/** How a GET the router answered is answered again, for any caller. */
export interface Repeatable {
  /** The route template that answered, for metrics and logs. */
  route: string;
  /** The scope the route needs. */
  scope: KeyScope;
  /**
   * The answer to a caller, from the parameters the router checked and normalized (what depends
   * on the caller, like a cursor's organization, is checked in here, on every call).
   */
  answer: (caller: Caller) => Promise<Response>;
}

/** The GET targets the router answered, each with how to answer it again. */
export type RepeatTargets = KnownTargets<Repeatable>;

export function repeatTargets(): RepeatTargets {
  return new KnownTargets(10_000);
}
