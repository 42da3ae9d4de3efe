/**
 * What the client API keeps in process memory between requests: key records by SHA-256, and
 * answers (list pages, story details, feeds) by organization and normalized request. Every entry
 * belongs to one organization; `dropOrganization` removes them all when the workspace announces a
 * change, so nothing here has a time limit.
 *
 * A read that started before a drop may have seen the data as it was before the change: `begin`
 * marks when a read starts and `set` refuses a value whose organization was dropped since.
 */
export interface ReadCacheOptions {
  /** At most this many entries (default 20,000). */
  maxEntries?: number;
  /** At most about this many bytes of cached text (default 64 MiB). */
  maxBytes?: number;
}

interface Entry {
  organizationId: string;
  value: unknown;
  bytes: number;
}

/** A key record or other small value: counted at this size. */
const RECORD_BYTES = 512;
/** Past this many remembered drops, forget them all and start again empty. */
const MAX_REMEMBERED_DROPS = 10_000;

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  /** Reads under way, so that concurrent misses of one key make one read. */
  private readonly loading = new Map<string, { startedAt: number; value: Promise<unknown> }>();
  private readonly byOrganization = new Map<string, Set<string>>();
  /** The clock when each organization was last dropped. */
  private readonly droppedAt = new Map<string, number>();
  private allDroppedAt = 0;
  private clock = 0;
  private bytes = 0;
  readonly maxEntries: number;
  readonly maxBytes: number;

  constructor(options: ReadCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 20_000;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
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

  get<T>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Least recently used goes first: move this one to the end.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value as T;
  }

  /**
   * The cached value of `key`, or what `load` reads, kept for the organization `organizationOf`
   * names (nothing is kept for null). A request joins a read of the same key already under way
   * only when nothing was dropped since that read started.
   */
  async through<T>(
    key: string,
    load: () => Promise<T>,
    organizationOf: (value: T) => string | null,
  ): Promise<T> {
    const hit = this.get<T>(key);
    if (hit !== undefined) return hit;
    const pending = this.loading.get(key);
    if (pending && pending.startedAt === this.clock) return pending.value as Promise<T>;
    const startedAt = this.clock;
    const value = load();
    this.loading.set(key, { startedAt, value });
    try {
      const loaded = await value;
      const organizationId = organizationOf(loaded);
      if (organizationId !== null) this.set(organizationId, key, loaded, startedAt);
      return loaded;
    } finally {
      if (this.loading.get(key)?.value === value) this.loading.delete(key);
    }
  }

  /**
   * Keeps `value` (read from the database since `startedAt`) for the organization, unless the
   * organization's entries were dropped since then. Returns whether it was kept.
   */
  set(organizationId: string, key: string, value: unknown, startedAt: number): boolean {
    if (this.allDroppedAt > startedAt) return false;
    if ((this.droppedAt.get(organizationId) ?? 0) > startedAt) return false;
    const bytes = typeof value === "string" ? value.length * 2 : RECORD_BYTES;
    if (bytes > this.maxBytes) return false;
    this.remove(key);
    this.entries.set(key, { organizationId, value, bytes });
    this.bytes += bytes;
    let keys = this.byOrganization.get(organizationId);
    if (!keys) {
      keys = new Set();
      this.byOrganization.set(organizationId, keys);
    }
    keys.add(key);
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest);
    }
    return true;
  }

  /** Drops everything held for the organization, and refuses reads that started before now. */
  dropOrganization(organizationId: string): void {
    this.clock += 1;
    const keys = this.byOrganization.get(organizationId);
    if (keys) {
      for (const key of keys) this.removeEntry(key);
      this.byOrganization.delete(organizationId);
    }
    this.droppedAt.delete(organizationId);
    this.droppedAt.set(organizationId, this.clock);
    if (this.droppedAt.size > MAX_REMEMBERED_DROPS) this.dropAll();
  }

  /** Drops everything (and forgets which organizations were dropped when). */
  dropAll(): void {
    this.clock += 1;
    this.allDroppedAt = this.clock;
    this.entries.clear();
    this.byOrganization.clear();
    this.droppedAt.clear();
    this.bytes = 0;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.removeEntry(key);
    const keys = this.byOrganization.get(entry.organizationId);
    keys?.delete(key);
    if (keys?.size === 0) this.byOrganization.delete(entry.organizationId);
  }

  private removeEntry(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
