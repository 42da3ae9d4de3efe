import type { Html } from "@newsroom/shared/html";
import type { EarlyAnswer } from "@newsroom/shared/http/http-kit";
import { matchedRouteOf, requestIdOf } from "@newsroom/shared/http/request-context";
import { targetOf } from "@newsroom/shared/http/urls";
import { log } from "@newsroom/shared/log";
import type { AnswerCache } from "./answer-cache.ts";
import { type AnswerExtras, notFoundAnswer, okAnswer, respond, unavailable } from "./responses.ts";

/** What a content read gives: a body to show, or "not found"; either with its purge keys. */
export type ReadOutcome =
  | ({ found: true; body: unknown; tags: string[]; scope: string | null } & AnswerExtras)
  | { found: false; message: string; tags: string[]; scope: string | null; page?: Html };

export function found(
  body: unknown,
  tags: string[],
  scope: string | null,
  extras: AnswerExtras = {},
): ReadOutcome {
  return { found: true, body, tags, scope, ...extras };
}

/** Not found; `page` is the HTML answered instead of the JSON error (a page route's 404). */
export function notFoundOutcome(
  message: string,
  tags: string[],
  scope: string | null,
  page?: Html,
) {
  return { found: false, message, tags, scope, page } satisfies ReadOutcome;
}

export interface Reader {
  /**
   * Answers a public read from the cache, or runs `load` (bounded by the read timeout) and
   * caches what it gives. A failed or slow read answers 503 and is not cached: the JSON error, or
   * what `unavailableAnswer` gives (a page's own 503).
   */
  serve(
    request: Request,
    key: string,
    load: () => Promise<ReadOutcome>,
    unavailableAnswer?: () => Response,
  ): Promise<Response>;
  /**
   * The cached answer for a GET whose exact target was served before, with the route template
   * that served it; undefined when the request must be routed. The app's one fast path: asked
   * before its router (`beforeRouting`), it answers exactly as the route would from the cache,
   * without matching the route and checking its parameters again.
   */
  cached(request: Request): EarlyAnswer | undefined;
}

export function createReader(cache: AnswerCache, options: { timeoutMs?: number } = {}): Reader {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    cached(request) {
      if (request.method !== "GET") return undefined;
      const known = cache.getByTarget(targetOf(request.url));
      return known && { route: known.route, respond: () => respond(known.answer, request) };
    },
    async serve(request, key, load, unavailableAnswer) {
      const route = matchedRouteOf(request);
      if (request.method === "GET" && route) cache.remember(targetOf(request.url), key, route);
      const hit = cache.get(key);
      if (hit) return respond(hit, request);
      const since = cache.begin();
      let outcome: ReadOutcome;
      try {
        outcome = await withTimeout(load(), timeoutMs);
      } catch (error) {
        log.warn("public read failed", {
          request_id: requestIdOf(request),
          key,
          error: error instanceof Error ? error.message : String(error),
        });
        return unavailableAnswer ? unavailableAnswer() : unavailable(request);
      }
      const answer = outcome.found
        ? okAnswer(outcome.body, outcome.tags, outcome.scope, outcome)
        : notFoundAnswer(outcome.message, outcome.tags, outcome.scope, outcome.page);
      cache.set(key, answer, since);
      return respond(answer, request);
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`read took over ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
