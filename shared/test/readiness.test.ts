import { describe, expect, test } from "bun:test";
import { readiness } from "../src/service.ts";

/** Readiness is cached: a success 15 s, a failure 1 s, so a process just up is seen soon. */
function probe() {
  let clock = 0;
  let healthy = false;
  let calls = 0;
  const ready = readiness(
    [
      {
        name: "database",
        check: async () => {
          calls += 1;
          if (!healthy) throw new Error("down");
        },
      },
    ],
    () => clock,
  );
  return {
    ready,
    at: (ms: number) => {
      clock = ms;
    },
    heal: () => {
      healthy = true;
    },
    fail: () => {
      healthy = false;
    },
    calls: () => calls,
  };
}

describe("readiness cache", () => {
  test("a failure is asked again after a second", async () => {
    const p = probe();
    expect((await p.ready()).ok).toBe(false);
    p.heal();
    p.at(500);
    expect((await p.ready()).ok).toBe(false);
    expect(p.calls()).toBe(1);
    p.at(1_000);
    expect((await p.ready()).ok).toBe(true);
    expect(p.calls()).toBe(2);
  });

  test("a success stands for 15 seconds", async () => {
    const p = probe();
    p.heal();
    expect((await p.ready()).ok).toBe(true);
    p.fail();
    p.at(14_999);
    expect((await p.ready()).ok).toBe(true);
    expect(p.calls()).toBe(1);
    p.at(15_000);
    expect((await p.ready()).ok).toBe(false);
  });
});
