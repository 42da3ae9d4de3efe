import { describe, expect, test } from "bun:test";
import { eventually } from "../src/testing/eventually.ts";
import { waitForPort } from "../src/testing/servers.ts";

describe("eventually", () => {
  test("returns the first present value", async () => {
    let reads = 0;
    const value = await eventually(() => (++reads >= 3 ? { reads } : undefined), {
      message: "the third read",
      everyMs: 1,
    });
    expect(value).toEqual({ reads: 3 });
  });

  test("with a check, returns the first value the check accepts, even a falsy one", async () => {
    let countdown = 3;
    const value = await eventually(
      () => --countdown,
      (left) => left === 0,
      { message: "the countdown", everyMs: 1 },
    );
    expect(value).toBe(0);
  });

  test("at its deadline throws, naming what it waited for and the last value", async () => {
    const started = Date.now();
    const failure = await eventually(
      () => ({ status: 503 }),
      (answer) => answer.status === 200,
      {
        message: "the service to answer 200",
        timeoutMs: 150,
        everyMs: 10,
      },
    ).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain("waited 150 ms for the service to answer 200");
    expect((failure as Error).message).toContain("503");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  test("a read that keeps failing is retried, then its last error is reported", async () => {
    let reads = 0;
    const failure = await eventually(
      () => {
        reads += 1;
        throw new Error(`refused #${reads}`);
      },
      { message: "a connection", timeoutMs: 100, everyMs: 10 },
    ).catch((error: Error) => error);
    expect(reads).toBeGreaterThan(1);
    expect((failure as Error).message).toContain(`the last read failed: Error: refused #${reads}`);
    expect((failure as Error).cause).toBeInstanceOf(Error);
  });

  test("a read that never answers does not hold the wait past its deadline", async () => {
    const started = Date.now();
    const failure = await eventually(() => new Promise<boolean>(() => {}), {
      message: "a hanging read",
      timeoutMs: 100,
    }).catch((error: Error) => error);
    expect((failure as Error).message).toContain("the last read had not answered");
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("waitForPort", () => {
  test("resolves for a listening port and throws for a closed one", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = server.port!;
    await waitForPort(port, 2_000);
    await server.stop(true);
    await expect(waitForPort(port, 300)).rejects.toThrow(`port ${port} on 127.0.0.1`);
  });
});
