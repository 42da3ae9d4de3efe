import { createHash, randomUUID } from "node:crypto";
import { Batcher } from "./batch.ts";
import { log } from "./log.ts";

/**
 * Fixed-window counters behind one interface: in memory for one process, Redis when several
 * replicas must share a limit. Same algorithm on both.
 */
export interface RateLimitStore {
  readonly kind: "memory" | "redis";
  /**
   * Adds one hit to each counter in order, in the current window of each, and stops after the
   * first that goes over its limit; returns the counts of the counters it hit. One round trip
   * for all of them. A store across the network answers or fails within its timeout.
   */
  hit(counters: readonly CounterHit[]): Promise<number[]>;
  /** A counter's count in its current window, without adding a hit (0 when it has none). */
  peek(counter: CounterPeek): Promise<number>;
  /**
   * Takes a place in each rolling window in order, if it has room: a window holds at most `limit`
   * places taken within the last `windowMs`, whenever the window is looked at (no boundary where
   * two windows' worth can pass together). Answers, for each, 0 when the place was taken, else
   * the milliseconds until the oldest place in it lapses. One round trip for all of them; a
   * store across the network answers or fails within its timeout.
   */
  reserve(places: readonly WindowPlace[]): Promise<number[]>;
  close(): Promise<void>;
}

export interface WindowPlace {
  key: string;
  limit: number;
  windowMs: number;
}

export interface CounterPeek {
  key: string;
  windowSeconds: number;
}

export interface CounterHit {
  key: string;
  limit: number;
  windowSeconds: number;
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

  async hit(counters: readonly CounterHit[]): Promise<number[]> {
    const now = Date.now();
    if (now > this.sweepAt) {
      for (const [k, v] of this.counters) if (v.resetAt <= now) this.counters.delete(k);
      this.sweepAt = now + 10_000;
    }
    const counts: number[] = [];
    for (const { key, limit, windowSeconds } of counters) {
      const current = this.counters.get(key);
      let count = 1;
      if (!current || current.resetAt <= now) {
        this.counters.set(key, { count, resetAt: now + windowSeconds * 1000 });
      } else {
        count = ++current.count;
      }
      counts.push(count);
      if (count > limit) break;
    }
    return counts;
  }

  async peek({ key }: CounterPeek): Promise<number> {
    const current = this.counters.get(key);
    return current && current.resetAt > Date.now() ? current.count : 0;
  }

  /** Places taken, oldest first, by window key. */
  private readonly windows = new Map<string, number[]>();

  async reserve(places: readonly WindowPlace[]): Promise<number[]> {
    const now = Date.now();
    return places.map(({ key, limit, windowMs }) => {
      const taken = (this.windows.get(key) ?? []).filter((at) => at > now - windowMs);
      const wait = taken.length < limit ? 0 : Math.max(1, taken[0]! + windowMs - now);
      if (wait === 0) taken.push(now);
      if (taken.length > 0) this.windows.set(key, taken);
      else this.windows.delete(key);
      return wait;
    });
  }

  async close(): Promise<void> {
    this.counters.clear();
    this.windows.clear();
  }
}

/**
 * Adds one hit to each counter and gives it its expiry in one atomic step (a counter never
 * outlives its window, even if the process dies mid-request; one found without an expiry gets
 * one). Takes the counters of several requests at once: ARGV[1] says how many requests, the
 * next ARGV say how many counters each has (KEYS holds them all, request after request), then
 * each counter's expiry and limit in turn. Each request's counters are hit in order, stopping
 * after the first over its limit; the answer holds each request's counts.
 */
const COUNT_WITH_EXPIRY = `
local requests = tonumber(ARGV[1])
local key = 1
local arg = requests + 2
local answers = {}
for r = 1, requests do
  local counts = {}
  local over = false
  for i = 1, tonumber(ARGV[r + 1]) do
    if not over then
      local count = redis.call("INCR", KEYS[key])
      if redis.call("TTL", KEYS[key]) == -1 then redis.call("EXPIRE", KEYS[key], ARGV[arg]) end
      counts[i] = count
      over = count > tonumber(ARGV[arg + 1])
    end
    key = key + 1
    arg = arg + 2
  end
  answers[r] = counts
end
return answers`;
/** Sent by its digest (EVALSHA): Redis keeps the script once it has seen it. */
const COUNT_WITH_EXPIRY_SHA = createHash("sha1").update(COUNT_WITH_EXPIRY).digest("hex");

/**
 * Takes a place in each rolling window with room (`reserve`), atomically: a window is a sorted
 * set of the times places were taken, on Redis's clock so every replica reads the same time.
 * KEYS are the windows; ARGV holds, for each, its limit, its length in ms and a member unique to
 * this place. Answers 0 for a place taken, else the ms until the window's oldest place lapses.
 */
const TAKE_WINDOW_PLACE = `
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local answers = {}
for i = 1, #KEYS do
  local limit = tonumber(ARGV[i * 3 - 2])
  local window = tonumber(ARGV[i * 3 - 1])
  redis.call("ZREMRANGEBYSCORE", KEYS[i], "-inf", now - window)
  if redis.call("ZCARD", KEYS[i]) < limit then
    redis.call("ZADD", KEYS[i], now, ARGV[i * 3])
    redis.call("PEXPIRE", KEYS[i], window)
    answers[i] = 0
  else
    local oldest = redis.call("ZRANGE", KEYS[i], 0, 0, "WITHSCORES")
    answers[i] = math.max(1, tonumber(oldest[2]) + window - now)
  end
end
return answers`;
const TAKE_WINDOW_PLACE_SHA = createHash("sha1").update(TAKE_WINDOW_PLACE).digest("hex");

/**
 * Redis through Bun's built-in client. The hits of the requests that arrive within one turn of
 * the event loop, or while a call is under way, go to Redis as one script call (`Batcher`): one
 * round trip and one script run for many requests, each still counted in its own order.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = "redis";
  private readonly client: Bun.RedisClient;
  readonly hit: (counters: readonly CounterHit[]) => Promise<number[]>;
  private readonly hits: Batcher<readonly CounterHit[], number[]>;

  /** Requests whose hits Redis has not answered yet (a run of them under way, or waiting). */
  get waitingHits(): number {
    return this.hits.waiting;
  }

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
    // Redis may accept and never answer. A run ends within the timeout, so the batches behind
    // it start and none is kept waiting; a request waits no longer than that either, queue
    // included, and is then allowed without the store (checkLimits).
    this.hits = new Batcher(
      (requests: (readonly CounterHit[])[]) => withTimeout(this.hitAll(requests), STORE_TIMEOUT_MS),
      { concurrency: 4 },
    );
    this.hit = (counters) => withTimeout(this.hits.submit(counters), STORE_TIMEOUT_MS);
  }

  private connecting: Promise<void> | null = null;

  private async connected(): Promise<void> {
    if (this.client.connected) return;
    // Commands fail fast while disconnected (no offline queue); connect once, retry later.
    this.connecting ??= this.client.connect().finally(() => {
      this.connecting = null;
    });
    await this.connecting;
  }

  /** The Redis key of a counter's current window. */
  private windowKey(key: string, windowSeconds: number, now: number): string {
    return `${this.prefix}${key}:${Math.floor(now / (windowSeconds * 1000))}`;
  }

  private async hitAll(requests: (readonly CounterHit[])[]): Promise<number[][]> {
    await this.connected();
    const now = Date.now();
    const keys: string[] = [];
    const sizes: string[] = [];
    const args: string[] = [];
    for (const counters of requests) {
      sizes.push(String(counters.length));
      for (const { key, limit, windowSeconds } of counters) {
        keys.push(this.windowKey(key, windowSeconds, now));
        args.push(String(windowSeconds + 1), String(limit));
      }
    }
    const operands = [String(keys.length), ...keys, String(requests.length), ...sizes, ...args];
    const answers = await this.runScript(COUNT_WITH_EXPIRY, COUNT_WITH_EXPIRY_SHA, operands);
    return (answers as unknown[][]).map((counts) => counts.map(Number));
  }

  /** Runs a script by its digest, or whole when Redis has not seen it yet (or restarted). */
  private async runScript(script: string, sha: string, operands: string[]): Promise<unknown> {
    try {
      return await this.client.send("EVALSHA", [sha, ...operands]);
    } catch (error) {
      if (!String((error as Error)?.message).includes("NOSCRIPT")) throw error;
      return this.client.send("EVAL", [script, ...operands]);
    }
  }

  reserve(places: readonly WindowPlace[]): Promise<number[]> {
    const take = async () => {
      if (places.length === 0) return [];
      await this.connected();
      const keys = places.map(({ key }) => `${this.prefix}${key}`);
      const args = places.flatMap(({ limit, windowMs }) => [
        String(limit),
        String(windowMs),
        randomUUID(),
      ]);
      const operands = [String(keys.length), ...keys, ...args];
      const answers = await this.runScript(TAKE_WINDOW_PLACE, TAKE_WINDOW_PLACE_SHA, operands);
      return (answers as unknown[]).map(Number);
    };
    return withTimeout(take(), STORE_TIMEOUT_MS);
  }

  peek({ key, windowSeconds }: CounterPeek): Promise<number> {
    const read = async () => {
      await this.connected();
      const count = await this.client.get(this.windowKey(key, windowSeconds, Date.now()));
      return count === null ? 0 : Number(count);
    };
    return withTimeout(read(), STORE_TIMEOUT_MS);
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
export function checkLimit(
  store: RateLimitStore,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<RateLimitDecision> {
  return checkLimits(store, [{ key, limit, windowSeconds }]);
}

/**
 * Counts a hit against several limits in order, in one round trip to the store: a counter after
 * the first one over its limit is not counted. The decision is that of the refusing limit, or of
 * the last one. Fails open like `checkLimit`.
 */
export async function checkLimits(
  store: RateLimitStore,
  counters: readonly CounterHit[],
): Promise<RateLimitDecision> {
  const last = counters[counters.length - 1]!;
  try {
    const counts = await store.hit(counters);
    const at = counts.length - 1;
    const { limit, windowSeconds } = counters[at]!;
    const count = counts[at]!;
    return { allowed: count <= limit, count, limit, resetSeconds: windowSeconds };
  } catch (error) {
    log.warn("rate limit store unavailable; allowing", {
      store: store.kind,
      error: error instanceof Error ? error.message : String(error),
    });
    return { allowed: true, count: 0, limit: last.limit, resetSeconds: last.windowSeconds };
  }
}

/**
 * A counter's count in its current window, without counting a hit. Fails open like `checkLimit`:
 * when the store fails the count is 0 (and the failure logged).
 */
export async function peekLimit(
  store: RateLimitStore,
  key: string,
  windowSeconds: number,
): Promise<number> {
  try {
    return await store.peek({ key, windowSeconds });
  } catch (error) {
    log.warn("rate limit store unavailable; allowing", {
      store: store.kind,
      error: error instanceof Error ? error.message : String(error),
    });
    return 0;
  }
}

/** How long a request waits for the shared store before it is allowed without it. */
const STORE_TIMEOUT_MS = 500;

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
