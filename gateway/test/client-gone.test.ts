import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { SERVER_SAFETY } from "@newsroom/shared/http/server-safety";
import { log } from "@newsroom/shared/log";
import { registry } from "@newsroom/shared/metrics";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { eventually } from "@newsroom/shared/testing/eventually";
import { Elysia } from "elysia";
import { createGateway } from "../src/app.ts";
import { httpUpstream } from "../src/upstream.ts";

/**
 * A client that closes its connection before the answer is not a failure of ours: it is counted
 * in http_requests_aborted_total, never logged as an unhandled error.
 */
let server: ReturnType<typeof Bun.serve>;
let upstream: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  // A route that takes a moment before it reads the body, as the forms do.
  const kit = httpKit("slow");
  const app = new Elysia().use(kit).post(
    "/v1/public/contact",
    async ({ request }) => {
      await Bun.sleep(200);
      return { length: (await request.text()).length };
    },
    { parse: "none" },
  );
  kit.bindRoutes(app);
  // A service across the network that takes a moment to read the body it is sent.
  upstream = Bun.serve({
    ...SERVER_SAFETY,
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      await Bun.sleep(200);
      return Response.json({ length: (await request.text()).length });
    },
  });
  const gateway = createGateway({
    config: loadConfig({}),
    mode: "embedded",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: {
      forms: async (request) => app.handle(request),
      "public-read": httpUpstream(`http://127.0.0.1:${upstream.port}`, "public-read"),
    },
    readinessChecks: [],
  });
  server = Bun.serve({
    ...SERVER_SAFETY,
    hostname: "127.0.0.1",
    port: 0,
    fetch: edge((request) => gateway.handle(request), { trustedProxies: "" }),
  });
});

afterAll(async () => {
  await server.stop(true);
  await upstream.stop(true);
});

async function abortedCount(): Promise<number> {
  const metric = await registry.getSingleMetric("http_requests_aborted_total")?.get();
  return (metric?.values ?? []).reduce((sum, value) => sum + value.value, 0);
}

/** Sends the head and part of a body, then closes the connection before any answer. */
function sendAndLeave(path: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(server.port!, "127.0.0.1", () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"name":`,
      );
      setTimeout(() => socket.destroy(), 50);
    });
    socket.on("close", () => resolve());
    socket.on("error", () => resolve());
  });
}

for (const [name, path] of [
  ["a route in this process", "/v1/public/contact"],
  ["a service behind the gateway over HTTP", "/v1/public/newsroom"],
] as const) {
  test(`a client gone before the answer of ${name} is counted, not logged as an error`, async () => {
    const before = await abortedCount();
    const capture = log.capture();
    try {
      await sendAndLeave(path);
      await eventually(abortedCount, (count) => count > before, {
        message: "the aborted request counted",
        timeoutMs: 5_000,
      });
      await Bun.sleep(50);
    } finally {
      capture.stop();
    }
    expect(await abortedCount()).toBe(before + 1);
    const errors = capture.lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.level === "error" || line.level === "warn");
    expect(errors).toEqual([]);
  });
}
