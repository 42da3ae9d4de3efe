import { describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { createGateway } from "../src/app.ts";
import { serviceForRequest } from "../src/routing.ts";

const config = loadConfig({
  PUBLIC_BASE_URL: "https://api.example.com",
  NEWSROOM_HOST: "https://api.example.com/newsrooms",
});
const route = (path: string, host: string | null = "api.example.com") =>
  serviceForRequest(path, host, config);

describe("newsroom pages through the gateway", () => {
  test("the house and hosted pages on the service's own host go to public reads", () => {
    for (const path of [
      "/newsroom",
      "/newsroom/a-story",
      "/newsroom/topics/a",
      "/newsrooms/site",
    ]) {
      expect(route(path)).toBe("public-read");
    }
    expect(route("/newsrooms/site/a-story", "API.Example.com:443")).toBe("public-read");
  });

  test("the API and the gateway's own paths are never shadowed by pages", () => {
    expect(route("/v1/stories")).toBe("client-api");
    expect(route("/v1/public/newsroom")).toBe("public-read");
    expect(route("/app/sign-in")).toBe("workspace");
    for (const path of ["/health", "/health/ready", "/docs", "/v1/openapi.json"]) {
      expect(route(path)).toBeNull();
      expect(route(path, "news.client.example")).toBeNull();
    }
    expect(route("/v1/stories", "news.client.example")).toBe("client-api");
  });

  test("the status page and its JSON go to the workspace on the service's own hosts only", () => {
    for (const host of ["api.example.com", "localhost:3000", "127.0.0.1:3000"]) {
      for (const path of [
        "/status",
        "/status/incidents/1",
        "/status/history.atom",
        "/api/v2/summary.json",
        "/api/v2/components.json",
      ]) {
        expect({ path, host, to: route(path, host) }).toEqual({ path, host, to: "workspace" });
      }
    }
    // A client's hostname keeps every path for its newsroom.
    expect(route("/status", "news.client.example")).toBe("public-read");
    expect(route("/api/v2/summary.json", "news.client.example")).toBe("public-read");
    // Neither opens the workspace's internal API.
    expect(route("/statuses")).toBeNull();
    expect(route("/internal/v1/status/incidents")).toBeNull();
  });

  test("anything else on the service's own host, localhost or an address is not a page", () => {
    expect(route("/")).toBeNull();
    expect(route("/a-story")).toBeNull();
    expect(route("/", "localhost:3000")).toBeNull();
    expect(route("/", "127.0.0.1:3000")).toBeNull();
    expect(route("/", "[::1]:3000")).toBeNull();
    expect(route("/", null)).toBeNull();
  });

  test("every other path on another host goes to its host pages", () => {
    for (const path of ["/", "/a-story", "/topics/a", "/newsroom", "/anything/else"]) {
      expect(route(path, "news.client.example")).toBe("public-read");
    }
  });
});

describe("the host public reads see", () => {
  test("is the Host the gateway routed on, never an X-Forwarded-Host the client sent", async () => {
    const seen: (string | null)[] = [];
    const gateway = createGateway({
      config,
      mode: "embedded",
      rateLimits: new MemoryRateLimitStore(),
      upstreams: {
        "public-read": async (request) => {
          seen.push(request.headers.get("x-forwarded-host"));
          return new Response("page");
        },
      },
      readinessChecks: [],
    });
    const handle = edge((request) => gateway.handle(request), { trustedProxies: "" });
    const own = await handle(
      new Request("https://api.example.com/newsroom", {
        headers: { host: "api.example.com", "x-forwarded-host": "news.client.example" },
      }),
    );
    expect(own.status).toBe(200);
    const client = await handle(
      new Request("https://news.client.example/a-story", {
        headers: { host: "news.client.example", "x-forwarded-host": "api.example.com" },
      }),
    );
    expect(client.status).toBe(200);
    expect(seen).toEqual(["api.example.com", "news.client.example"]);
  });
});
