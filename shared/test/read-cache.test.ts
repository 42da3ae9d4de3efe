import { describe, expect, test } from "bun:test";
import { ReadCache } from "../src/read-cache.ts";

describe("the read cache is bounded", () => {
  test("by entries, dropping the least recently used first", () => {
    const cache = new ReadCache<string>({ maxEntries: 3 });
    for (const key of ["a", "b", "c"]) cache.set(key, key, {}, cache.begin());
    expect(cache.get("a")).toBe("a");
    cache.set("d", "d", {}, cache.begin());
    expect(cache.size).toBe(3);
    expect(cache.get("b")).toBeUndefined();
    expect(["a", "c", "d"].map((key) => cache.get(key))).toEqual(["a", "c", "d"]);
  });

  test("an entry read since the older half went in outlives the entries never read", () => {
    const cache = new ReadCache<number>({ maxEntries: 100 });
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, i, {}, cache.begin());
    // The ten oldest are read (some twice), then fifty new entries push the oldest out.
    for (let i = 0; i < 10; i++) expect(cache.get(`k${i}`)).toBe(i);
    for (let i = 0; i < 5; i++) expect(cache.get(`k${i}`)).toBe(i);
    for (let i = 100; i < 150; i++) cache.set(`k${i}`, i, {}, cache.begin());
    expect(cache.size).toBe(100);
    for (let i = 0; i < 10; i++) expect(cache.get(`k${i}`)).toBe(i);
    for (let i = 10; i < 60; i++) expect(cache.get(`k${i}`)).toBeUndefined();
    for (let i = 60; i < 150; i++) expect(cache.get(`k${i}`)).toBe(i);
  });

  test("by bytes of text held", () => {
    const cache = new ReadCache<string>({ maxBytes: 10_000 });
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, "x".repeat(1_000), {}, cache.begin());
    expect(cache.sizeInBytes).toBeLessThanOrEqual(10_000);
    expect(cache.get("k0")).toBeUndefined();
    expect(cache.get("k9")).toHaveLength(1_000);
    // Larger than the whole cache: not kept at all.
    expect(cache.set("huge", "x".repeat(6_000), {}, cache.begin())).toBe(false);
  });

  test("by time: an entry past its limit is gone", async () => {
    const cache = new ReadCache<string>({ ttlMs: 30 });
    cache.set("short", "s", {}, cache.begin());
    cache.set("long", "l", { ttlMs: 10_000 }, cache.begin());
    expect(cache.get("short")).toBe("s");
    await Bun.sleep(50);
    expect(cache.get("short")).toBeUndefined();
    expect(cache.get("long")).toBe("l");
    expect(cache.size).toBe(1);
  });
});

describe("invalidation by tag", () => {
  test("drops exactly the entries carrying a tag, and frees their bytes", () => {
    const cache = new ReadCache<string>();
    cache.set("a1", "aaaa", { tags: ["org:a", "list"] }, cache.begin());
    cache.set("a2", "aa", { tags: ["org:a"] }, cache.begin());
    cache.set("b1", "bbbb", { tags: ["org:b", "list"] }, cache.begin());
    cache.set("plain", "pppp", {}, cache.begin());
    const bytes = cache.sizeInBytes;
    expect(cache.invalidate(["org:a"])).toBe(2);
    expect(cache.size).toBe(2);
    expect(cache.get("b1")).toBe("bbbb");
    expect(cache.sizeInBytes).toBeLessThan(bytes);
    expect(cache.invalidate(["list", "unknown"])).toBe(1);
    expect(cache.get("plain")).toBe("pppp");
  });

  test("a value read before its tag was invalidated is refused; another tag's does not refuse it", () => {
    const cache = new ReadCache<string>();
    const startedAt = cache.begin();
    cache.invalidate(["org:a"]);
    expect(cache.set("k", "stale", { tags: ["org:a"] }, startedAt)).toBe(false);
    expect(cache.get("k")).toBeUndefined();
    const later = cache.begin();
    cache.invalidate(["org:b"]);
    expect(cache.set("k", "fresh", { tags: ["org:a"] }, later)).toBe(true);
    expect(cache.get("k")).toBe("fresh");
  });

  test("a read under way when its tag is invalidated is neither kept nor joined", async () => {
    const cache = new ReadCache<string>();
    let release!: (value: string) => void;
    const slow = new Promise<string>((resolve) => {
      release = resolve;
    });
    const reads: string[] = [];
    const tagged = () => ({ tags: ["org:a"] });
    const first = cache.through(
      "k",
      () => {
        reads.push("first");
        return slow;
      },
      tagged,
    );
    // Joins the read under way: nothing changed since it started.
    const joined = cache.through(
      "k",
      async () => {
        reads.push("joined");
        return "never";
      },
      tagged,
    );
    cache.invalidate(["org:a"]);
    const after = cache.through(
      "k",
      async () => {
        reads.push("after");
        return "new";
      },
      tagged,
    );
    release("old");
    expect(await first).toBe("old");
    expect(await joined).toBe("old");
    expect(await after).toBe("new");
    expect(reads).toEqual(["first", "after"]);
    expect(cache.get("k")).toBe("new");
  });

  test("clearing refuses every read under way", () => {
    const cache = new ReadCache<string>();
    const startedAt = cache.begin();
    cache.clear();
    expect(cache.set("k", "stale", {}, startedAt)).toBe(false);
  });

  test("nothing is kept for a value its description refuses", async () => {
    const cache = new ReadCache<string>();
    expect(
      await cache.through(
        "k",
        async () => "error",
        () => null,
      ),
    ).toBe("error");
    expect(cache.size).toBe(0);
  });
});
