import { describe, expect, test } from "bun:test";
import { batched } from "../src/batch.ts";

/** A `run` that notes each batch it is given and answers when told to. */
function recordingRun() {
  const batches: number[][] = [];
  const pending: (() => void)[] = [];
  const run = (inputs: number[]) => {
    batches.push(inputs);
    return new Promise<string[]>((resolve) => {
      pending.push(() => resolve(inputs.map((n) => `answer ${n}`)));
    });
  };
  const answerAll = () => {
    for (const answer of pending.splice(0)) answer();
  };
  return { run, batches, answerAll };
}

describe("batched", () => {
  test("calls made in the same turn go in one run, each given its own answer", async () => {
    const { run, batches, answerAll } = recordingRun();
    const lookup = batched(run);
    const answers = Promise.all([lookup(1), lookup(2), lookup(3)]);
    await new Promise((resolve) => setImmediate(resolve));
    answerAll();
    expect(await answers).toEqual(["answer 1", "answer 2", "answer 3"]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  test("a call made while a run is in flight waits for a run of its own, started after it", async () => {
    const { run, batches, answerAll } = recordingRun();
    const lookup = batched(run);
    const first = lookup(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    // The first run has not answered: a later call must not share its (earlier) reading.
    const second = lookup(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1], [2]]);
    answerAll();
    expect(await Promise.all([first, second])).toEqual(["answer 1", "answer 2"]);
  });

  test("a batch starts at once when it reaches its largest size", async () => {
    const { run, batches, answerAll } = recordingRun();
    const lookup = batched(run, { maxSize: 2 });
    const answers = Promise.all([lookup(1), lookup(2), lookup(3)]);
    expect(batches).toEqual([[1, 2]]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1, 2], [3]]);
    answerAll();
    expect(await answers).toEqual(["answer 1", "answer 2", "answer 3"]);
  });

  test("a failed run rejects every call of its batch, and only those", async () => {
    let calls = 0;
    const lookup = batched(async (inputs: number[]) => {
      calls++;
      if (calls === 1) throw new Error("database gone");
      return inputs.map((n) => n * 10);
    });
    const failed = [lookup(1), lookup(2)].map((call) =>
      call.catch((error: Error) => error.message),
    );
    expect(await Promise.all(failed)).toEqual(["database gone", "database gone"]);
    expect(await lookup(3)).toBe(30);
  });

  test("a run that answers the wrong number of inputs fails its batch", async () => {
    const lookup = batched(async (_inputs: number[]) => [1]);
    const answers = [lookup(1), lookup(2)].map((call) =>
      call.catch((error: Error) => error.message),
    );
    expect(await Promise.all(answers)).toEqual([
      "batch answered 1 of 2 inputs",
      "batch answered 1 of 2 inputs",
    ]);
  });
});
