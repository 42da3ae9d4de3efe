import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { createGateway } from "../src/app.ts";
import { StatusCopies } from "../src/status-copies.ts";
import { httpUpstream } from "../src/upstream.ts";

/**
 * The status page while the workspace cannot be reached: the gateway answers its last good
 * copy of the page and of the JSON (a short public max-age), and a 503 for anything it never
 * kept or never keeps.
 */
let workspace: ReturnType<typeof Bun.serve>;
let gateway: ReturnType<typeof Bun.serve>;
let base = "";

beforeAll(() => {
  workspace = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/status") {
        return new Response("<!doctype html><h1>Newsroom status</h1>", {
          headers: { "content-type": "text/html; charset=utf-8", etag: '"a"' },
        });
      }
      if (path === "/api/v2/status.json") {
        return Response.json({ status: { indicator: "none" } });
      }
      return new Response("other", { status: 200 });
    },
  });
  const config = loadConfig({ PUBLIC_BASE_URL: "http://localhost:3000" });
  const app = createGateway({
    config,
    mode: "distributed",
    rateLimits: new MemoryRateLimitStore(),
    upstreams: { workspace: httpUpstream(`http://127.0.0.1:${workspace.port}`, "workspace") },
    readinessChecks: [],
    statusCopies: new StatusCopies(),
  });
  gateway = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: edge((request) => app.handle(request), { trustedProxies: "" }),
  });
  base = `http://127.0.0.1:${gateway.port}`;
});

afterAll(() => {
  gateway?.stop(true);
  workspace?.stop(true);
});

test("the last good page and JSON answered while the workspace is down", async () => {
  const page = await fetch(`${base}/status`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("Newsroom status");
  expect((await (await fetch(`${base}/api/v2/status.json`)).json()).status.indicator).toBe("none");
  expect((await fetch(`${base}/status/incidents/x`)).status).toBe(200);

  workspace.stop(true);
  const kept = await fetch(`${base}/status`);
  expect(kept.status).toBe(200);
  expect(kept.headers.get("cache-control")).toBe("public, max-age=10");
  expect(kept.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(await kept.text()).toContain("Newsroom status");
  const json = await fetch(`${base}/api/v2/status.json`);
  expect(json.status).toBe(200);
  expect((await json.json()).status.indicator).toBe("none");
  // Never kept (an incident's page), or kept never (the JSON not read before): 503.
  expect((await fetch(`${base}/status/incidents/x`)).status).toBe(503);
  expect((await fetch(`${base}/api/v2/components.json`)).status).toBe(503);
  expect((await fetch(`${base}/app/sign-in`)).status).toBe(503);
});
