import { requestIdOf } from "@newsroom/shared/http";
import { log } from "@newsroom/shared/log";
import type { ReadCache } from "./read-cache.ts";
import { etagOf, respond, unavailable } from "./responses.ts";

/** What a content read gives: a body to show, or "not found"; either with its purge keys. */
export type ReadOutcome =
  | { found: true; body: unknown; tags: string[]; scope: string | null }
  | { found: false; message: string; tags: string[]; scope: string | null };

export function found(body: unknown, tags: string[], scope: string | null): ReadOutcome {
  return { found: true, body, tags, scope };
}

export function notFoundOutcome(message: string, tags: string[], scope: string | null) {
  return { found: false, message, tags, scope } satisfies ReadOutcome;
}

export interface Reader {
  /**
   * Answers a public read from the cache, or runs `load` (bounded by the read timeout) and
   * caches what it gives. A failed or slow read answers 503 and is not cached.
   */
  serve(request: Request, key: string, load: () => Promise<ReadOutcome>): Promise<Response>;
}

const encoder = new TextEncoder();

export function createReader(cache: ReadCache, options: { timeoutMs?: number } = {}): Reader {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    async serve(request, key, load) {
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
        return unavailable(request);
      }
      const answer = outcome.found
        ? (() => {
            const body = encoder.encode(JSON.stringify(outcome.body));
            return {
              status: 200 as const,
              body,
              etag: etagOf(body),
              tags: outcome.tags,
              scope: outcome.scope,
            };
          })()
        : {
            status: 404 as const,
            body: outcome.message,
            etag: "",
            tags: outcome.tags,
            scope: outcome.scope,
          };
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
