import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { ApiError } from "@newsroom/shared/errors";
import { edge } from "@newsroom/shared/http/edge";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { clientIpOf } from "@newsroom/shared/http/request-context";
import { SERVER_BODY_LIMIT } from "@newsroom/shared/http/server-safety";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { ErrorOut } from "@newsroom/shared/records";
import { Value } from "@sinclair/typebox/value";
import { Elysia, t } from "elysia";
import { createGateway } from "../src/app.ts";
import { httpUpstream } from "../src/upstream.ts";

/** A stand-in service behind the gateway: real Elysia app, the shared kit, a few behaviours. */
function fakeService() {
  const kit = httpKit("fake");
  const app = new Elysia()
    .use(kit)
    .get("/v1/stories", () => ({ object: "list", data: [], has_more: false, next_cursor: null }))
    .get("/v1/public/newsroom", ({ query }) => ({ items: [], type: query.type ?? null }), {
      query: t.Object({ type: t.Optional(t.Union([t.Literal("insight"), t.Literal("video")])) }),
    })
    .post("/v1/public/contact", ({ body }) => body, { body: t.Object({ name: t.String() }) })
    .post("/v1/public/careers", ({ request }) => {
      if (!request.headers.get("content-type")?.includes("json")) {
        throw new ApiError("unsupported_body");
      }
      return { ok: true };
    })
    .get("/v1/public/boom", () => {
      throw new Error("database password is hunter2");
    });
  kit.bindRoutes(app);
  return app;
}

let server: ReturnType<typeof Bun.serve>;
let base = "";

beforeAll(() => {
  const service = fakeService();
  const gateway = createGateway({
    config: loadConfig({}),
    mode: "embedded",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: {
      "client-api": async (request) => service.handle(request),
      "public-read": async (request) => service.handle(request),
      // Nothing listens on port 9: the upstream is unreachable.
      forms: httpUpstream("http://127.0.0.1:9", "forms"),
    },
    readinessChecks: [{ name: "database", check: async () => {} }],
  });
  const formsGateway = createGateway({
    config: loadConfig({}),
    mode: "embedded",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: { forms: async (request) => service.handle(request) },
    readinessChecks: [],
  });
  server = Bun.serve({
    port: 0,
    maxRequestBodySize: SERVER_BODY_LIMIT,
    fetch: edge(
      (request) => {
        // Forms paths of this test go to a gateway whose forms upstream answers.
        const path = new URL(request.url).pathname;
        return path.startsWith("/v1/public/c")
          ? formsGateway.handle(request)
          : gateway.handle(request);
      },
      { trustedProxies: "" },
    ),
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

async function expectHeaders(response: Response, status: number) {
  expect(response.status).toBe(status);
  const requestId = response.headers.get("x-request-id");
  expect(requestId).toMatch(/^req_[A-Za-z0-9_-]{20}$/);
  expect(response.headers.get("x-service-version")).toBe("1.3.0");
  const isJson = response.headers.get("content-type")?.includes("json");
  // A JSON answer, success or error, is never sniffed as something else.
  expect(response.headers.get("x-content-type-options")).toBe(isJson ? "nosniff" : null);
  if (status >= 400 && isJson) {
    const body = await response.json();
    expect(Value.Check(ErrorOut, body)).toBe(true);
    expect(body.error.request_id).toBe(requestId);
    return body as ErrorOut;
  }
  return null;
}

describe("every gateway response carries X-Request-Id and X-Service-Version", () => {
  test("health", async () => {
    const response = await fetch(`${base}/health`);
    await expectHeaders(response, 200);
    const body = await response.json();
    expect(body.version).toBe("1.3.0");
    expect(body.database_configured).toBe(true);
  });

  test("readiness, not cacheable", async () => {
    const response = await fetch(`${base}/health/ready`);
    await expectHeaders(response, 200);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  test("unknown path: 404 not_found", async () => {
    const body = await expectHeaders(await fetch(`${base}/v2/nothing-here`), 404);
    expect(body?.error.code).toBe("not_found");
  });

  test("wrong method on a gateway path: 405 with Allow", async () => {
    const response = await fetch(`${base}/health`, { method: "DELETE" });
    const body = await expectHeaders(response, 405);
    expect(body?.error.code).toBe("method_not_allowed");
    expect(response.headers.get("allow")).toContain("GET");
  });

  test("wrong method on a service path: 405", async () => {
    const body = await expectHeaders(await fetch(`${base}/v1/stories`, { method: "POST" }), 405);
    expect(body?.error.code).toBe("method_not_allowed");
  });

  test("malformed JSON: 400", async () => {
    const response = await fetch(`${base}/v1/public/contact`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    const body = await expectHeaders(response, 400);
    expect(body?.error.type).toBe("invalid_request");
  });

  test("body validation: 422 validation_failed with fields", async () => {
    const response = await fetch(`${base}/v1/public/contact`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: 5 }),
    });
    const body = await expectHeaders(response, 422);
    expect(body?.error.fields?.[0]?.field).toBe("name");
  });

  test("query validation: 400 invalid_parameters with fields", async () => {
    const body = await expectHeaders(await fetch(`${base}/v1/public/newsroom?type=nope`), 400);
    expect(body?.error.code).toBe("invalid_parameters");
    expect(body?.error.fields?.[0]?.field).toBe("type");
  });

  test("unsupported body: 415", async () => {
    const response = await fetch(`${base}/v1/public/careers`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "hello",
    });
    const body = await expectHeaders(response, 415);
    expect(body?.error.code).toBe("unsupported_body");
  });

  test("a thrown error: 500 api_error, no internals", async () => {
    const response = await fetch(`${base}/v1/public/boom`);
    const text = await response.clone().text();
    const body = await expectHeaders(response, 500);
    expect(body?.error.code).toBe("api_error");
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("at ");
  });

  test("a body over the limit: 413", async () => {
    const response = await fetch(`${base}/v1/public/contact`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(1_100_000) }),
    });
    const body = await expectHeaders(response, 413);
    expect(body?.error.code).toBe("body_too_large");
  });

  test("an unreachable service: 503 with Retry-After", async () => {
    const response = await fetch(`${base}/v1/public/newsletter/subscribe`, { method: "POST" });
    const body = await expectHeaders(response, 503);
    expect(body?.error.type).toBe("unavailable");
    expect(response.headers.get("retry-after")).toBe("60");
  });

  test("a client API success carries RateLimit-Policy; over the per-key limit: 429", async () => {
    const headers = { authorization: `Bearer armk_test_${"a".repeat(43)}` };
    const ok = await fetch(`${base}/v1/stories`, { headers });
    await expectHeaders(ok, 200);
    expect(ok.headers.get("ratelimit-policy")).toBe("300;w=60");
    let last: Response = ok;
    for (let i = 0; i < 300; i++) last = await fetch(`${base}/v1/stories`, { headers });
    const body = await expectHeaders(last, 429);
    expect(body?.error.code).toBe("too_many_requests");
    expect(last.headers.get("retry-after")).toBe("60");
  });

  test("a client-supplied request id is replaced by a new one", async () => {
    const response = await fetch(`${base}/health`, {
      headers: { "x-request-id": "req_AAAAAAAAAAAAAAAAAAAA" },
    });
    await expectHeaders(response, 200);
    expect(response.headers.get("x-request-id")).not.toBe("req_AAAAAAAAAAAAAAAAAAAA");
  });

  test("each response has its own request id", async () => {
    const ids = new Set<string | null>();
    for (let i = 0; i < 5; i++)
      ids.add((await fetch(`${base}/health`)).headers.get("x-request-id"));
    expect(ids.size).toBe(5);
  });
});

test("the gateway forwards the client address it found, never the one the client sent", async () => {
  const echoAddress = (request: Request) => new Response(clientIpOf(request));
  const service = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: edge(echoAddress, { trustedProxies: "", behindGateway: true }),
  });
  const gateway = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: edge(httpUpstream(`http://127.0.0.1:${service.port}`, "test"), { trustedProxies: "" }),
  });
  try {
    const response = await fetch(`http://127.0.0.1:${gateway.port}/`, {
      headers: { "x-client-ip": "6.6.6.6" },
    });
    expect(await response.text()).toBe("127.0.0.1");
  } finally {
    await gateway.stop(true);
    await service.stop(true);
  }
});
