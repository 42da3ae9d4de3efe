import { KnownTargets } from "@newsroom/shared/http/known-targets";
import { answerTags } from "@newsroom/shared/http/public-answers";
import { ReadCache } from "@newsroom/shared/read-cache";

/**
 * The public answers kept in process, in the shared read cache: keyed by the normalized
 * request, tagged with their `Cache-Tag` purge keys and their organization, so that a story
 * event or a site change drops exactly the answers it changes (`invalidate`), as a CDN purge
 * would. A time limit bounds staleness if an event is ever missed.
 *
 * It also remembers which key each request target (path and query) read, so that a repeated
 * request is answered without routing and checking its parameters again: the same target
 * always parses to the same key. A target whose answer was dropped simply misses.
 */
export type Answer = (
  | {
      status: 200;
      /** The whole answer, headers and body built once: each request gets a clone. */
      response: Response;
      etag: string;
      /** The Last-Modified value (an HTTP date), or null when the answer does not know it. */
      lastModified: string | null;
      /** The body's size, for the cache's byte bound. */
      bytes: number;
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

export interface AnswerCacheOptions {
  maxEntries?: number;
  /** How long a 200 answer may be served without an event, in ms (default 60 s). */
  ttlMs?: number;
  /** How long a 404 answer is kept, in ms (default 60 s). */
  notFoundTtlMs?: number;
}

export class AnswerCache {
  private readonly answers: ReadCache<Answer>;
  private readonly targets: KnownTargets<{ key: string; route: string }>;
  readonly maxEntries: number;
  readonly ttlMs: number;
  readonly notFoundTtlMs: number;

  constructor(options: AnswerCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 5_000;
    this.ttlMs = options.ttlMs ?? 60_000;
    this.notFoundTtlMs = options.notFoundTtlMs ?? 60_000;
    this.answers = new ReadCache({ maxEntries: this.maxEntries, ttlMs: this.ttlMs });
    this.targets = new KnownTargets(this.maxEntries * 4);
  }

  get size(): number {
    return this.answers.size;
  }

  /** How many request targets it remembers (at most four per entry). */
  get targetCount(): number {
    return this.targets.size;
  }

  get(key: string): Answer | undefined {
    return this.answers.get(key);
  }

  /**
   * Remembers that `target` reads `key` through the route template `route` (a padded target, the
   * public routes ignoring unknown parameters, is not kept: see KnownTargets).
   */
  remember(target: string, key: string, route: string): void {
    this.targets.remember(target, { key, route });
  }

  /** The cached answer a request target read before, with its route template. */
  getByTarget(target: string): { answer: Answer; route: string } | undefined {
    const known = this.targets.get(target);
    if (!known) return undefined;
    const answer = this.get(known.key);
    return answer && { answer, route: known.route };
  }

  /** Call before reading the database; pass the result to `set`. */
  begin(): number {
    return this.answers.begin();
  }

  /**
   * Stores an answer unless one of its tags was invalidated since `begin` (the answer may
   * predate the change the event announced).
   */
  set(key: string, answer: Answer, since: number): void {
    this.answers.set(
      key,
      answer,
      {
        tags: answerTags(answer.tags, answer.scope),
        ttlMs: answer.status === 200 ? this.ttlMs : this.notFoundTtlMs,
        bytes: answer.status === 200 ? answer.bytes : undefined,
      },
      since,
    );
  }

  /** Drops the answers carrying any of these tags. Returns how many. */
  invalidate(tags: Iterable<string>): number {
    return this.answers.invalidate(tags);
  }

  clear(): void {
    this.answers.clear();
    this.targets.clear();
  }
}
