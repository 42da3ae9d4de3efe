import type { Html } from "@newsroom/shared/html";
import { requestIdOf } from "@newsroom/shared/http/request-context";
import { log } from "@newsroom/shared/log";
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
   * Answers a public read: runs `load` (bounded by the read timeout) and answers what it gives,
   * 200 (304 to a matching conditional GET) or 404, with its purge keys. A failed or slow read
   * answers 503: the JSON error, or what `unavailableAnswer` gives (a page's own 503). Nothing
   * is kept here: the gateway keeps the public answers (gateway/src/answer-cache.ts).
   */
  serve(
    request: Request,
    load: () => Promise<ReadOutcome>,
    unavailableAnswer?: () => Response,
  ): Promise<Response>;
}

export function createReader(options: { timeoutMs?: number } = {}): Reader {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    async serve(request, load, unavailableAnswer) {
      let outcome: ReadOutcome;
      try {
        outcome = await withTimeout(load(), timeoutMs);
      } catch (error) {
        log.warn("public read failed", {
          request_id: requestIdOf(request),
          error: error instanceof Error ? error.message : String(error),
        });
        return unavailableAnswer ? unavailableAnswer() : unavailable(request);
      }
      const answer = outcome.found
        ? okAnswer(outcome.body, outcome.tags, outcome.scope, outcome)
        : notFoundAnswer(outcome.message, outcome.tags, outcome.scope, outcome.page);
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
