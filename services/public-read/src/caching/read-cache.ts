/**
 * The in-process read cache: answers keyed by the normalized request, each tied to the
 * organization it shows (its scope). Story publish/unpublish and site change events drop an
 * organization's answers (and the answers that name no organization, such as unknown sites),
 * so a publish shows at once on every replica. A time limit bounds staleness if an event is
 * ever missed.
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
    }
  | { status: 404; message: string }
) & {
  /** The Cache-Tag value: the purge keys, comma-separated. */
  tags: string;
  /** The organization whose content this is, or null. */
  scope: string | null;
};

export type CachedAnswer = Answer & { expiresAt: number };

export interface ReadCacheOptions {
  maxEntries?: number;
  /** How long a 200 answer may be served without an event, in ms (default 60 s). */
  ttlMs?: number;
  /** How long a 404 answer is kept, in ms (default 60 s). */
  notFoundTtlMs?: number;
}

/** The longest request target remembered; the longest valid public-read target is about 600. */
const MAX_TARGET_LENGTH = 1_024;

export class ReadCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private readonly targets = new Map<string, { key: string; route: string }>();
  private generation = 0;
  readonly maxEntries: number;
  readonly ttlMs: number;
  readonly notFoundTtlMs: number;

  constructor(options: ReadCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 5_000;
    this.ttlMs = options.ttlMs ?? 60_000;
    this.notFoundTtlMs = options.notFoundTtlMs ?? 60_000;
  }

  get size(): number {
    return this.entries.size;
  }

  /** How many request targets it remembers (at most four per entry). */
  get targetCount(): number {
    return this.targets.size;
  }

  get(key: string): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Least recently used goes first: move this one to the end.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * Remembers that `target` reads `key` through the route template `route`. A target longer than
   * any the public routes need (unknown parameters are ignored, so a client may pad one) is not
   * kept: memory stays bounded by count and size.
   */
  remember(target: string, key: string, route: string): void {
    if (target.length > MAX_TARGET_LENGTH) return;
    if (this.targets.size >= this.maxEntries * 4 && !this.targets.has(target)) this.targets.clear();
    this.targets.set(target, { key, route });
  }

  /** The cached answer a request target read before, with its route template. */
  getByTarget(target: string): { answer: CachedAnswer; route: string } | undefined {
    const known = this.targets.get(target);
    if (!known) return undefined;
    const answer = this.get(known.key);
    return answer && { answer, route: known.route };
  }

  /** Call before reading the database; pass the result to `set`. */
  begin(): number {
    return this.generation;
  }

  /**
   * Stores an answer unless an invalidation happened since `begin` (the answer may predate the
   * change the event announced).
   */
  set(key: string, answer: Answer, since: number): void {
    if (since !== this.generation) return;
    const ttl = answer.status === 200 ? this.ttlMs : this.notFoundTtlMs;
    this.entries.delete(key);
    this.entries.set(key, { ...answer, expiresAt: Date.now() + ttl });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /**
   * Drops the organization's answers and those of no organization (every answer when no
   * organization is named). Returns how many.
   */
  invalidate(organizationId: string | null): number {
    if (organizationId === null) {
      const dropped = this.entries.size;
      this.clear();
      return dropped;
    }
    this.generation += 1;
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (entry.scope === null || entry.scope === organizationId) {
        this.entries.delete(key);
        dropped += 1;
      }
    }
    return dropped;
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.targets.clear();
  }
}
