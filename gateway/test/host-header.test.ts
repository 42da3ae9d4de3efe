import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { SERVER_BODY_LIMIT, SERVER_SAFETY } from "@newsroom/shared/http/server-safety";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { ErrorOut } from "@newsroom/shared/records";
import { type RawAnswer, rawRequest } from "@newsroom/shared/testing/raw-http";
import { Value } from "@sinclair/typebox/value";
import { Elysia, t } from "elysia";
import { createGateway } from "../src/app.ts";

/**
 * The Host header as clients really send it: missing (HTTP/1.0), empty, short, with an odd port,
 * or malformed. Bun builds `request.url` from it, so each case goes over a real socket.
 */
function fakePublicRead() {
  const kit = httpKit("fake");
  const app = new Elysia()
    .use(kit)
    .get("/v1/public/newsroom", ({ query }) => ({ items: [], type: query.type ?? null }), {
      query: t.Object({ type: t.Optional(t.Union([t.Literal("insight"), t.Literal("video")])) }),
    })
    .get("/v1/public/boom", () => {
      throw new Error("database password is hunter2");
    });
  kit.bindRoutes(app);
  return app;
}

let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  const service = fakePublicRead();
  const gateway = createGateway({
    config: loadConfig({}),
    mode: "embedded",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: { "public-read": async (request) => service.handle(request) },
    readinessChecks: [],
  });
  server = Bun.serve({
    ...SERVER_SAFETY,
    port: 0,
    hostname: "127.0.0.1",
    maxRequestBodySize: SERVER_BODY_LIMIT,
    fetch: edge((request) => gateway.handle(request), { trustedProxies: "" }),
  });
});

afterAll(() => server.stop(true));

function get(target: string, hostLine: string | null, version = "1.1"): Promise<RawAnswer> {
  const host = hostLine === null ? "" : `Host: ${hostLine}\r\n`;
  return rawRequest(
    server.port!,
    `GET ${target} HTTP/${version}\r\n${host}Connection: close\r\n\r\n`,
  );
}

function expectEdgeHeaders(answer: RawAnswer) {
  expect(answer.headers["x-request-id"]).toMatch(/^req_[A-Za-z0-9_-]{20}$/);
  expect(answer.headers["x-service-version"]).toBe("1.3.0");
  expect(answer.raw).not.toMatch(/ at |\.ts:\d|node_modules|\/src\//);
}

describe("a missing, empty or short Host routes on the request target", () => {
  for (const [name, host, version] of [
    ["HTTP/1.0 without Host", null, "1.0"],
    ["HTTP/1.1 with an empty Host", "", "1.1"],
    ["a one-letter Host", "a", "1.1"],
    ["a valid odd port", "example.com:8443", "1.1"],
    ["an IPv6 literal", "[::1]:3000", "1.1"],
  ] as const) {
    test(name, async () => {
      const answer = await get("/v1/public/newsroom?type=video", host, version);
      expect(answer.status).toBe(200);
      expectEdgeHeaders(answer);
      expect(JSON.parse(answer.body)).toEqual({ items: [], type: "video" });
    });
  }

  test("an unknown path without Host is still a 404 Error record", async () => {
    const answer = await get("/v2/nothing", null, "1.0");
    expect(answer.status).toBe(404);
    expectEdgeHeaders(answer);
    expect(Value.Check(ErrorOut, JSON.parse(answer.body))).toBe(true);
  });

  test("a failing route without Host is a plain 500 Error record", async () => {
    const answer = await get("/v1/public/boom", null, "1.0");
    expect(answer.status).toBe(500);
    expectEdgeHeaders(answer);
    expect(answer.body).not.toContain("hunter2");
  });
});

describe("a malformed Host is a 400 Error record, never Bun's error page", () => {
  for (const host of [
    "127.0.0.1:99999",
    "127.0.0.1:65536",
    "example.com:abc",
    "[::1",
    "%",
    "a b",
  ]) {
    test(JSON.stringify(host), async () => {
      const answer = await get("/v1/public/newsroom", host);
      expect(answer.status).toBe(400);
      expectEdgeHeaders(answer);
      const body = JSON.parse(answer.body);
      expect(Value.Check(ErrorOut, body)).toBe(true);
      expect(body.error.code).toBe("invalid_parameters");
      expect(body.error.request_id).toBe(answer.headers["x-request-id"]);
    });
  }
});

test("an error that escapes the handler is a plain 500 Error record", async () => {
  const failing = Bun.serve({
    ...SERVER_SAFETY,
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      throw new Error("database password is hunter2");
    },
  });
  try {
    const answer = await rawRequest(
      failing.port!,
      "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    );
    expect(answer.status).toBe(500);
    expectEdgeHeaders(answer);
    expect(answer.body).not.toContain("hunter2");
    expect(JSON.parse(answer.body).error.code).toBe("api_error");
  } finally {
    await failing.stop(true);
  }
});
