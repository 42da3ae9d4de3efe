import { log } from "./log.ts";

/**
 * Fixed-window counters behind one interface: in memory for one process, Redis when several
 * replicas must share a limit. Same algorithm on both.
 */
export interface RateLimitStore {
  readonly kind: "memory" | "redis";
  /** Adds one hit to `key` in the current window and returns the count so far. */
  hit(key: string, windowSeconds: number): Promise<number>;
  close(): Promise<void>;
}

export interface RateLimitDecision {
  allowed: boolean;
  count: number;
  limit: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = "memory";
  private readonly counters = new Map<string, { count: number; resetAt: number }>();
  private sweepAt = 0;

  async hit(key: string, windowSeconds: number): Promise<number> {
    const now = Date.now();
    if (now > this.sweepAt) {
      for (const [k, v] of this.counters) if (v.resetAt <= now) this.counters.delete(k);
      this.sweepAt = now + 10_000;
    }
    const current = this.counters.get(key);
    if (!current || current.resetAt <= now) {
      this.counters.set(key, { count: 1, resetAt: now + windowSeconds * 1000 });
      return 1;
    }
    current.count += 1;
    return current.count;
  }

  async close(): Promise<void> {
    this.counters.clear();
  }
}

/**
 * Adds one hit and gives the counter its expiry in one atomic step: a counter never outlives its
 * window, even if the process dies mid-request. A counter found without an expiry (left by an
 * earlier two-step version) gets one too.
 */
const COUNT_WITH_EXPIRY = `
local count = redis.call("INCR", KEYS[1])
if redis.call("TTL", KEYS[1]) == -1 then redis.call("EXPIRE", KEYS[1], ARGV[1]) end
return count`;

/** Redis through Bun's built-in client. */
export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = "redis";
  private readonly client: Bun.RedisClient;

  /** `prefix` keeps the counters of separate deployments (or test files) apart. */
  constructor(
    url: string,
    private readonly prefix = "rl:",
  ) {
    this.client = new Bun.RedisClient(url, {
      connectionTimeout: 1_000,
      autoReconnect: true,
      enableOfflineQueue: false,
    });
  }

  private connecting: Promise<void> | null = null;

  async hit(key: string, windowSeconds: number): Promise<number> {
    if (!this.client.connected) {
      // Commands fail fast while disconnected (no offline queue); connect once, retry later.
      this.connecting ??= this.client.connect().finally(() => {
        this.connecting = null;
      });
      await this.connecting;
    }
    const window = Math.floor(Date.now() / (windowSeconds * 1000));
    const name = `${this.prefix}${key}:${window}`;
    const count = await this.client.send("EVAL", [
      COUNT_WITH_EXPIRY,
      "1",
      name,
      String(windowSeconds + 1),
    ]);
    return Number(count);
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

export function openRateLimitStore(redisUrl: string | undefined, prefix?: string): RateLimitStore {
  return redisUrl ? new RedisRateLimitStore(redisUrl, prefix) : new MemoryRateLimitStore();
}

/**
 * Counts a hit against a limit. When the store fails (Redis down) the request is allowed:
 * rate limiting fails open, and the failure is logged, never turned into a 500.
 */
export async function checkLimit(
  store: RateLimitStore,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<RateLimitDecision> {
  try {
    const count = await withTimeout(store.hit(key, windowSeconds), 500);
    return { allowed: count <= limit, count, limit, resetSeconds: windowSeconds };
  } catch (error) {
    log.warn("rate limit store unavailable; allowing", {
      store: store.kind,
      error: error instanceof Error ? error.message : String(error),
    });
    return { allowed: true, count: 0, limit, resetSeconds: windowSeconds };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
