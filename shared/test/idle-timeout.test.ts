import { describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { loadConfig } from "../src/config.ts";
import { ProcessConfig } from "../src/config-variables.ts";
import { serverOptions } from "../src/http/server-safety.ts";

/** Sends one keep-alive request on a raw socket; resolves when the server closes it, with when. */
function openIdleConnection(port: number): {
  answered: Promise<string>;
  closedAt: Promise<number>;
} {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  let answer: (text: string) => void = () => {};
  const answered = new Promise<string>((resolve) => {
    answer = resolve;
  });
  const closedAt = new Promise<number>((resolve) => {
    socket.on("close", () => resolve(performance.now()));
  });
  socket.on("data", (chunk) => {
    received += chunk.toString();
    if (received.includes("\r\n\r\n")) answer(received);
  });
  socket.write("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n");
  return { answered, closedAt };
}

describe("idle keep-alive connections", () => {
  test("stay open 75 s by default, longer than a proxy's usual 60 s", () => {
    const config = loadConfig(ProcessConfig, {});
    expect(config.HTTP_IDLE_TIMEOUT_SECONDS).toBe(75);
    expect(serverOptions(config).idleTimeout).toBe(75);
    expect(() => loadConfig(ProcessConfig, { HTTP_IDLE_TIMEOUT_SECONDS: "256" })).toThrow(
      "HTTP_IDLE_TIMEOUT_SECONDS",
    );
  });

  test("are closed after HTTP_IDLE_TIMEOUT_SECONDS, and not before", async () => {
    const config = loadConfig(ProcessConfig, { HTTP_IDLE_TIMEOUT_SECONDS: "2" });
    const server = Bun.serve({
      ...serverOptions(config),
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response("ok"),
    });
    try {
      const { answered, closedAt } = openIdleConnection(server.port as number);
      expect(await answered).toStartWith("HTTP/1.1 200");
      const idleSince = performance.now();
      const idle = (await closedAt) - idleSince;
      // Bun checks idle sockets every few seconds: closed within a few seconds after the limit.
      expect(idle).toBeGreaterThanOrEqual(1_900);
      expect(idle).toBeLessThan(10_000);
    } finally {
      server.stop(true);
    }
  }, 15_000);
});
