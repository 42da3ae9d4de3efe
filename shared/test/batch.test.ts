import { describe, expect, test } from "bun:test";
import { Batcher } from "../src/batch.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("Batcher", () => {
  test("what arrives together or during a run goes in one run; a failure fails its batch only", async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, string>(async (items) => {
      runs.push(items);
      await Bun.sleep(20);
      if (items.includes(13)) throw new Error("unlucky batch");
      return items.map((item) => `ok ${item}`);
    });
    const first = [1, 2].map((item) => batcher.submit(item));
    await Bun.sleep(5);
    // The first run is in progress: these wait for the next one, which starts after them, so
    // they never share the first run's (earlier) reading.
    const second = [3, 13].map((item) => batcher.submit(item));
    expect(await Promise.all(first)).toEqual(["ok 1", "ok 2"]);
    const settled = await Promise.allSettled(second);
    expect(runs).toEqual([
      [1, 2],
      [3, 13],
    ]);
    expect(settled.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    expect(await batcher.submit(4)).toBe("ok 4");
    expect(runs).toEqual([[1, 2], [3, 13], [4]]);
  });

  test("a run takes at most maxBatch items; the rest go in the next", async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        runs.push(items);
        return items.map((item) => item * 10);
      },
      { maxBatch: 2 },
    );
    expect(await Promise.all([1, 2, 3].map((item) => batcher.submit(item)))).toEqual([10, 20, 30]);
    expect(runs).toEqual([[1, 2], [3]]);
  });

  test("with room for two runs, a batch starts while the first is under way, and still after its items", async () => {
    const runs: number[][] = [];
    const release: (() => void)[] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        runs.push(items);
        await new Promise<void>((resolve) => release.push(resolve));
        return items;
      },
      { concurrency: 2 },
    );
    const first = [1, 2].map((item) => batcher.submit(item));
    await nextTurn();
    const second = [3].map((item) => batcher.submit(item));
    await nextTurn();
    // Two runs under way: a third batch waits for one of them to end.
    const third = [4, 5].map((item) => batcher.submit(item));
    await nextTurn();
    expect(runs).toEqual([[1, 2], [3]]);
    release.shift()!();
    expect(await Promise.all(first)).toEqual([1, 2]);
    await nextTurn();
    await nextTurn();
    expect(runs).toEqual([[1, 2], [3], [4, 5]]);
    for (const done of release.splice(0)) done();
    expect(await Promise.all([...second, ...third])).toEqual([3, 4, 5]);
  });

  test("a run that answers the wrong number of results fails its batch", async () => {
    const batcher = new Batcher<number, number>(async () => [1]);
    const answers = [1, 2].map((item) =>
      batcher.submit(item).catch((error: Error) => error.message),
    );
    expect(await Promise.all(answers)).toEqual([
      "a batch of 2 was answered with 1 results",
      "a batch of 2 was answered with 1 results",
    ]);
    await nextTurn();
  });
});
