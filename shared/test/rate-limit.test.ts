import { describe, expect, test } from "bun:test";
import { log } from "../src/log.ts";
import {
  checkLimit,
  checkLimits,
  MemoryRateLimitStore,
  peekLimit,
  type RateLimitStore,
  RedisRateLimitStore,
} from "../src/rate-limit.ts";
import { requireService } from "../src/testing/database.ts";
import { eventually } from "../src/testing/eventually.ts";

const redisUrl = requireService("REDIS_URL");
const prefix = `t:${Math.random().toString(36).slice(2, 8)}:`;

const backends: [string, () => RateLimitStore][] = [["memory", () => new MemoryRateLimitStore()]];
if (redisUrl) backends.push(["redis", () => new RedisRateLimitStore(redisUrl, prefix)]);

for (const [name, open] of backends) {
  describe(`rate limit store: ${name}`, () => {
    test("allows up to the limit in a window, then refuses", async () => {
      const store = open();
      const results = [];
      for (let i = 0; i < 7; i++)
        results.push((await checkLimit(store, "client-a", 5, 60)).allowed);
      expect(results).toEqual([true, true, true, true, true, false, false]);
      expect((await checkLimit(store, "client-b", 5, 60)).allowed).toBe(true);
      await store.close();
    });

    test("rolling windows: at most the limit within any window, and how long until a place frees", async () => {
      const store = open();
      const key = `window-${Math.random().toString(36).slice(2, 8)}`;
      const place = { key, limit: 3, windowMs: 600 };
      expect(await store.reserve([place, place])).toEqual([0, 0]);
      await Bun.sleep(250);
      // The third fits; the fourth waits for the first two to lapse (about 350 ms from now).
      const [third, fourth] = await store.reserve([place, place]);
      expect(third).toBe(0);
      expect(fourth).toBeGreaterThan(200);
      expect(fourth).toBeLessThanOrEqual(360);
      expect(await store.reserve([{ ...place, key: `${key}-other` }])).toEqual([0]);
      await Bun.sleep(fourth! + 20);
      // The first two lapsed, the third holds its place: a rolling window, not a fresh one.
      const after = await store.reserve([place, place, place]);
      expect(after.slice(0, 2)).toEqual([0, 0]);
      expect(after[2]).toBeGreaterThan(0);
      await store.close();
    });

    test("several limits in one call: each counted in order, none after the one refusing", async () => {
      const store = open();
      const both = [
        { key: "address", limit: 3, windowSeconds: 60 },
        { key: "key", limit: 2, windowSeconds: 60 },
      ];
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await checkLimits(store, both));
      // The key's limit refuses the third; the address's the fourth, which counts no key hit.
      expect(decisions.map((d) => [d.allowed, d.limit, d.count])).toEqual([
        [true, 2, 1],
        [true, 2, 2],
        [false, 2, 3],
        [false, 3, 4],
      ]);
      expect(await checkLimit(store, "key", 100, 60)).toMatchObject({ count: 4 });
      await store.close();
    });

    test("requests arriving together are each counted, in order, as if one after another", async () => {
      const store = open();
      const both = [
        { key: "together-address", limit: 3, windowSeconds: 60 },
        { key: "together-key", limit: 100, windowSeconds: 60 },
      ];
      // Six requests at once (one script call on Redis): the address refuses the fourth, which
      // then counts no key hit; so do the fifth and sixth.
      const decisions = await Promise.all(
        Array.from({ length: 6 }, () => checkLimits(store, both)),
      );
      expect(decisions.map((d) => [d.allowed, d.limit, d.count])).toEqual([
        [true, 100, 1],
        [true, 100, 2],
        [true, 100, 3],
        [false, 3, 4],
        [false, 3, 5],
        [false, 3, 6],
      ]);
      expect(await checkLimit(store, "together-key", 100, 60)).toMatchObject({ count: 4 });
      await store.close();
    });

    test("a peek reads a counter's count without adding a hit", async () => {
      const store = open();
      expect(await peekLimit(store, "peeked", 60)).toBe(0);
      await checkLimit(store, "peeked", 5, 60);
      await checkLimit(store, "peeked", 5, 60);
      expect(await peekLimit(store, "peeked", 60)).toBe(2);
      expect(await peekLimit(store, "peeked", 60)).toBe(2);
      expect(await checkLimit(store, "peeked", 5, 60)).toMatchObject({ count: 3 });
      await store.close();
    });

    test("two instances on one store share the count", async () => {
      const one = open();
      const two = open();
      let allowed = 0;
      for (let i = 0; i < 10; i++) {
        if ((await checkLimit(i % 2 ? one : two, "shared", 6, 60)).allowed) allowed += 1;
      }
      // Memory stores are per process: each instance counts alone. Redis counts once for both.
      expect(allowed).toBe(name === "redis" ? 6 : 10);
      await one.close();
      await two.close();
    });
  });
}

if (redisUrl) {
  describe("Redis counters always expire", () => {
    /** The counter keys under a fresh prefix, with their TTL in seconds. */
    async function counters(redis: Bun.RedisClient, under: string) {
      const names: string[] = await redis.send("KEYS", [`${under}*`]);
      return Promise.all(names.map(async (name) => ({ name, ttl: await redis.ttl(name) })));
    }

    test("a counter has its TTL from the first hit", async () => {
      const under = `t:${Math.random().toString(36).slice(2, 10)}:`;
      const store = new RedisRateLimitStore(redisUrl, under);
      const redis = new Bun.RedisClient(redisUrl);
      await checkLimit(store, "first", 5, 60);
      const found = await counters(redis, under);
      expect(found).toHaveLength(1);
      expect(found[0]!.ttl).toBeGreaterThan(0);
      expect(found[0]!.ttl).toBeLessThanOrEqual(61);
      redis.close();
      await store.close();
    });

    test("a Redis that has forgotten the script (a restart, SCRIPT FLUSH) is sent it whole", async () => {
      const under = `t:${Math.random().toString(36).slice(2, 10)}:`;
      const store = new RedisRateLimitStore(redisUrl, under);
      const redis = new Bun.RedisClient(redisUrl);
      expect((await checkLimit(store, "flushed", 5, 60)).count).toBe(1);
      await redis.send("SCRIPT", ["FLUSH"]);
      const capture = log.capture();
      try {
        expect(await checkLimit(store, "flushed", 5, 60)).toMatchObject({ count: 2 });
        expect(await checkLimit(store, "flushed", 5, 60)).toMatchObject({ count: 3 });
      } finally {
        capture.stop();
      }
      // Counted, not failed open: nothing was logged as unavailable.
      expect(capture.lines.filter((line) => line.includes("unavailable"))).toEqual([]);
      redis.close();
      await store.close();
    });

    test("a counter left without a TTL (a crash between INCR and EXPIRE) gets one on the next hit", async () => {
      const under = `t:${Math.random().toString(36).slice(2, 10)}:`;
      const store = new RedisRateLimitStore(redisUrl, under);
      const redis = new Bun.RedisClient(redisUrl);
      await checkLimit(store, "crashed", 5, 3600);
      const [counter] = await counters(redis, under);
      await redis.persist(counter!.name);
      expect(await redis.ttl(counter!.name)).toBe(-1);
      expect((await checkLimit(store, "crashed", 5, 3600)).count).toBe(2);
      const ttl = await redis.ttl(counter!.name);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(3601);
      redis.close();
      await store.close();
    });
  });
}

describe("a store that fails", () => {
  test("fails open: the request is allowed, never an error", async () => {
    const broken: RateLimitStore = {
      kind: "redis",
      hit: () => Promise.reject(new Error("connection refused")),
      peek: () => Promise.reject(new Error("connection refused")),
      reserve: () => Promise.reject(new Error("connection refused")),
      close: async () => {},
    };
    expect(await checkLimit(broken, "x", 1, 60)).toMatchObject({ allowed: true });
    expect(await peekLimit(broken, "x", 60)).toBe(0);
  });

  test("a Redis that stops answering fails every request open within the timeout, and keeps none waiting", async () => {
    // Answers the client's handshake (HELLO, a one-entry map), then never another command.
    const silent = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket, data) {
          if (data.toString().includes("HELLO")) socket.write("%1\r\n+server\r\n+redis\r\n");
        },
      },
    });
    const store = new RedisRateLimitStore(`redis://127.0.0.1:${silent.port}`, prefix);
    const capture = log.capture();
    try {
      for (let wave = 0; wave < 3; wave++) {
        const started = Date.now();
        const decisions = await Promise.all(
          Array.from({ length: 20 }, (_, i) => checkLimit(store, `silent-${i}`, 1, 60)),
        );
        expect(decisions.every((decision) => decision.allowed)).toBe(true);
        // Each wave on its own clock: the runs of the waves before it ended, none queues behind.
        expect(Date.now() - started).toBeLessThan(2_000);
      }
      // Nothing is left waiting on a run that will never end.
      await eventually(() => store.waitingHits === 0, {
        message: "every hit to be given up on",
        timeoutMs: 2_000,
      });
    } finally {
      capture.stop();
      await store.close();
      silent.stop(true);
    }
  });

  test("an unreachable Redis fails open within the timeout", async () => {
    const store = new RedisRateLimitStore("redis://127.0.0.1:9", prefix);
    const started = Date.now();
    expect((await checkLimit(store, "x", 1, 60)).allowed).toBe(true);
    expect(await peekLimit(store, "x", 60)).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
    await store.close();
  });
});
