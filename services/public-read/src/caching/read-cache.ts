/**
 * The in-process read cache: answers keyed by the normalized request, each tied to the
 * organization it shows (its scope). Story publish/unpublish and site change events drop an
 * organization's answers (and the answers that name no organization, such as unknown sites),
 * so a publish shows at once on every replica. A time limit bounds staleness if an event is
 * ever missed.
 */
export interface CachedAnswer {
  status: 200 | 404;
  /** 200: the JSON body, encoded once; 404: the error message. */
  body: Uint8Array<ArrayBuffer> | string;
  etag: string;
  tags: string[];
  /** The organization whose content this is, or null. */
  scope: string | null;
  expiresAt: number;
}

export interface ReadCacheOptions {
  maxEntries?: number;
  /** How long a 200 answer may be served without an event, in ms (default 60 s). */
  ttlMs?: number;
  /** How long a 404 answer is kept, in ms (default 60 s). */
  notFoundTtlMs?: number;
}

export class ReadCache {
  private readonly entries = new Map<string, CachedAnswer>();
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

  /** Call before reading the database; pass the result to `set`. */
  begin(): number {
    return this.generation;
  }

  /**
   * Stores an answer unless an invalidation happened since `begin` (the answer may predate the
   * change the event announced).
   */
  set(key: string, answer: Omit<CachedAnswer, "expiresAt">, since: number): void {
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
  }
}
