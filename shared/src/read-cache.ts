/**
 * The in-process cache of answers (the client API's, and the gateway's public answers):
 * values by key, least recently used dropped first (to within half the entries) past a count or
 * a size in bytes, each for at most a time limit, and each carrying tags so that a change drops
 * exactly the entries it touches (`invalidate`), never the whole cache.
 *
 * A read that started before an invalidation may have seen the data as it was before the
 * change: `begin` marks when a read starts, and `set` refuses a value carrying a tag invalidated
 * since. Concurrent misses of one key make one read (`through`).
 */
export interface ReadCacheOptions {
  /** At most this many entries (default 20,000). */
  maxEntries?: number;
  /** At most about this many bytes of cached values (default 64 MiB). */
  maxBytes?: number;
  /** How long an entry may be served, in ms (default: until dropped). */
  ttlMs?: number;
}

/** How an entry is kept. */
export interface EntryOptions {
  /** Invalidating any of these drops the entry. */
  tags?: readonly string[];
  /** Overrides the cache's time limit for this entry, in ms. */
  ttlMs?: number;
  /** Its size; a string counts two bytes a character, anything else this or 512. */
  bytes?: number;
}

interface Entry<V> {
  value: V;
  tags: readonly string[];
  bytes: number;
  expiresAt: number;
  /** The cache's `appends` when the entry last went to the end of the order. */
  appendedAt: number;
}

const OTHER_BYTES = 512;
/** Past this many remembered invalidations, forget them all and start again empty. */
const MAX_REMEMBERED_TAGS = 10_000;

export class ReadCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly byTag = new Map<string, Set<string>>();
  /** Reads under way, so that concurrent misses of one key make one read. */
  private readonly loading = new Map<string, { startedAt: number; value: Promise<V> }>();
  /** The clock when each tag was last invalidated. */
  private readonly invalidatedAt = new Map<string, number>();
  private clearedAt = 0;
  private clock = 0;
  private bytes = 0;
  /** How many times an entry went to the end of the order (set, or a read moving it there). */
  private appends = 0;
  readonly maxEntries: number;
  readonly maxBytes: number;
  readonly ttlMs: number;

  constructor(options: ReadCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 20_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.ttlMs = options.ttlMs ?? Number.POSITIVE_INFINITY;
  }

  get size(): number {
    return this.entries.size;
  }

  get sizeInBytes(): number {
    return this.bytes;
  }

  /** Call before reading the database; pass the result to `set`. */
  begin(): number {
    return this.clock;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.remove(key);
      return undefined;
    }
    // Least recently used goes first: move this one to the end, unless at most half the entries
    // went there since it did. It is among the newer half already, and a hot entry is not
    // deleted and inserted again on every read (the gateway answers a kept read in microseconds).
    if (this.appends - entry.appendedAt > this.entries.size / 2) {
      this.entries.delete(key);
      entry.appendedAt = ++this.appends;
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  /**
   * The cached value of `key`, or what `load` reads, kept as `describe` says (nothing is kept
   * for null). A request joins a read of the same key already under way only when nothing was
   * invalidated since that read started.
   */
  async through(
    key: string,
    load: () => Promise<V>,
    describe: (value: V) => EntryOptions | null = () => ({}),
  ): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const pending = this.loading.get(key);
    if (pending && pending.startedAt === this.clock) return pending.value;
    const startedAt = this.clock;
    const value = load();
    this.loading.set(key, { startedAt, value });
    try {
      const loaded = await value;
      const options = describe(loaded);
      if (options) this.set(key, loaded, options, startedAt);
      return loaded;
    } finally {
      if (this.loading.get(key)?.value === value) this.loading.delete(key);
    }
  }

  /**
   * Keeps `value`, read from the database since `startedAt`, unless one of its tags was
   * invalidated since then or it is larger than the whole cache. Returns whether it was kept.
   */
  set(key: string, value: V, options: EntryOptions, startedAt: number): boolean {
    const tags = options.tags ?? [];
    if (this.clearedAt > startedAt) return false;
    for (const tag of tags) if ((this.invalidatedAt.get(tag) ?? 0) > startedAt) return false;
    const bytes = typeof value === "string" ? value.length * 2 : (options.bytes ?? OTHER_BYTES);
    if (bytes > this.maxBytes) return false;
    this.remove(key);
    const ttl = options.ttlMs ?? this.ttlMs;
    const appendedAt = ++this.appends;
    this.entries.set(key, { value, tags, bytes, expiresAt: Date.now() + ttl, appendedAt });
    this.bytes += bytes;
    for (const tag of tags) {
      let keys = this.byTag.get(tag);
      if (!keys) {
        keys = new Set();
        this.byTag.set(tag, keys);
      }
      keys.add(key);
    }
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest);
    }
    return true;
  }

  /**
   * Drops every entry carrying one of `tags`, and refuses reads of them that started before
   * now. Returns how many entries went.
   */
  invalidate(tags: Iterable<string>): number {
    this.clock += 1;
    let dropped = 0;
    for (const tag of tags) {
      for (const key of this.byTag.get(tag) ?? []) {
        if (this.remove(key)) dropped += 1;
      }
      this.byTag.delete(tag);
      this.invalidatedAt.delete(tag);
      this.invalidatedAt.set(tag, this.clock);
    }
    if (this.invalidatedAt.size > MAX_REMEMBERED_TAGS) this.clear();
    return dropped;
  }

  /** Drops everything, and refuses every read under way. */
  clear(): void {
    this.clock += 1;
    this.clearedAt = this.clock;
    this.entries.clear();
    this.byTag.clear();
    this.invalidatedAt.clear();
    this.bytes = 0;
  }

  private remove(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
    return true;
  }
}
