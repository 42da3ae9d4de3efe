import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect, createServer, type Server } from "node:net";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { SERVER_SAFETY } from "@newsroom/shared/http/server-safety";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { createGateway } from "../src/app.ts";
import { RATE_LIMIT_POLICY } from "../src/rate-limits.ts";
import { httpUpstream } from "../src/upstream.ts";

/**
 * The distributed gateway's hop to a service: connections reused across requests, answers
 * streamed as they come, and the upstream's answer handed on as it is (headers added in place,
 * never copied).
 */
let service: ReturnType<typeof Bun.serve>;
let counter: Server;
let gateway: ReturnType<typeof Bun.serve>;
let accepted = 0;
/** The answers fetch gave the gateway, as they came. */
const answers: Response[] = [];
const recording = async (url: string, init: RequestInit) => {
  const response = await fetch(url, init);
  answers.push(response);
  return response;
};
/** Lets the slow route finish its body. */
let finishSlow: () => void = () => {};

beforeAll(async () => {
  service = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      if (new URL(request.url).pathname === "/v1/public/slow") {
        const stream = new ReadableStream({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode("first;"));
            await new Promise<void>((resolve) => {
              finishSlow = resolve;
            });
            controller.enqueue(new TextEncoder().encode("rest"));
            controller.close();
          },
        });
        return new Response(stream, { headers: { "content-type": "text/plain" } });
      }
      return Response.json({ ok: true }, { headers: { "cache-control": "public, max-age=60" } });
    },
  });
  // A TCP relay in front of the service that counts the connections it accepts.
  counter = createServer((socket) => {
    accepted++;
    const upstream = connect(service.port!, "127.0.0.1");
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve) => counter.listen(0, "127.0.0.1", resolve));
  const port = (counter.address() as { port: number }).port;
  const app = createGateway({
    config: loadConfig({ PUBLIC_RATE_LIMIT_PER_MINUTE: "1000000" }),
    mode: "distributed",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: {
      "public-read": httpUpstream(`http://127.0.0.1:${port}`, "public-read"),
    },
    readinessChecks: [],
  });
  gateway = Bun.serve({
    ...SERVER_SAFETY,
    hostname: "127.0.0.1",
    port: 0,
    fetch: edge((request) => app.handle(request), { trustedProxies: "" }),
  });
});

afterAll(async () => {
  finishSlow();
  await gateway.stop(true);
  counter.close();
  await service.stop(true);
});

test("200 sequential requests through the gateway open at most a handful of connections", async () => {
  accepted = 0;
  for (let i = 0; i < 200; i++) {
    const response = await fetch(`http://127.0.0.1:${gateway.port}/v1/public/newsroom?i=${i}`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
  expect(accepted).toBeGreaterThan(0);
  expect(accepted).toBeLessThanOrEqual(5);
});

test("an answer is streamed: its first bytes arrive before the service has finished", async () => {
  const response = await fetch(`http://127.0.0.1:${gateway.port}/v1/public/slow`);
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const first = await Promise.race([
    reader.read(),
    Bun.sleep(5_000).then(() => ({ value: undefined, done: true })),
  ]);
  expect(new TextDecoder().decode(first.value)).toBe("first;");
  finishSlow();
  let rest = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  expect(rest).toBe("rest");
});

test("the service's answer is handed on as it came, its headers added to in place", async () => {
  answers.length = 0;
  const app = createGateway({
    config: loadConfig({}),
    mode: "distributed",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: {
      "client-api": httpUpstream(`http://127.0.0.1:${service.port}`, "client-api", recording),
    },
    readinessChecks: [],
  });
  const handle = edge((request) => app.handle(request), { trustedProxies: "" });
  const response = await handle(
    new Request("http://localhost/v1/stories", { headers: { authorization: "Bearer x" } }),
  );
  expect(response.status).toBe(200);
  expect(answers).toHaveLength(1);
  expect(response).toBe(answers[0]!);
  expect(response.headers.get("ratelimit-policy")).toBe(RATE_LIMIT_POLICY);
  expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  expect(response.headers.get("cache-control")).toBe("public, max-age=60");
  expect(await response.json()).toEqual({ ok: true });
});
