import { describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { createGateway } from "../src/app.ts";
import type { ServiceName } from "../src/routing.ts";

/**
 * The services' internal APIs (`/internal/...`, behind ADMIN_TOKEN) are reached only at the
 * services' own addresses: the gateway forwards none of them, whatever the token, host or
 * spelling. Forms serves the mailings' sends there; the gateway sends it `/v1/public/...` only.
 */
const seen: Record<ServiceName, string[]> = {
  forms: [],
  "public-read": [],
  "client-api": [],
  workspace: [],
};
const recorder = (name: ServiceName) => async (request: Request) => {
  seen[name].push(new URL(request.url).pathname);
  return Response.json({ object: "digest_run" });
};
const gateway = createGateway({
  config: loadConfig({
    PUBLIC_BASE_URL: "https://api.example.com",
    NEWSROOM_HOST: "https://api.example.com/newsrooms",
  }),
  mode: "embedded",
  rateLimits: new MemoryRateLimitStore(),
  upstreams: {
    forms: recorder("forms"),
    "public-read": recorder("public-read"),
    "client-api": recorder("client-api"),
    workspace: recorder("workspace"),
  },
  readinessChecks: [],
});

const post = (path: string, host = "api.example.com") =>
  gateway.handle(
    new Request(`https://api.example.com${path}`, {
      method: "POST",
      headers: {
        host,
        authorization: "Bearer change-me-admin-token-0123456789",
        "content-type": "application/json",
      },
      body: "{}",
    }),
  );

describe("internal paths through the gateway", () => {
  test("the forms service's internal API is 404 at the gateway, and forms never sees it", async () => {
    for (const path of [
      "/internal/v1/digest/send",
      "/internal/v1/orgs/northwind/newsletter/send",
      "/INTERNAL/v1/digest/send",
      "/v1/public/newsletter/../../internal/v1/digest/send",
      "/v1/public/newsletter/%2e%2e/%2e%2e/internal/v1/digest/send",
      "//internal/v1/digest/send",
    ]) {
      const response = await post(path);
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe("not_found");
    }
    // On a client's own hostname every path is a newsroom page: public reads, never forms.
    await post("/internal/v1/digest/send", "news.client.example");
    expect(seen.forms).toEqual([]);
    expect(seen.workspace).toEqual([]);
  });
});
