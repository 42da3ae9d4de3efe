import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createGateway } from "@newsroom/gateway/app";
import { httpUpstream } from "@newsroom/gateway/upstream";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { adminToken, loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { freePort } from "@newsroom/shared/testing/ports";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createWorkspaceService } from "@newsroom/workspace/app";
import { SIGN_IN_LIMITS } from "@newsroom/workspace/identity/sign-in/service";
import { serveWorkspace } from "@newsroom/workspace/server";
import { WebClient, type WebHarness, webHarness } from "../support/workspace-web-embedded.ts";

/**
 * A flow across two services: the workspace's web app is reached through the gateway in both
 * modes; the internal API never is.
 */

let wrongCodes = 0;
/**
 * A wrong code from `client`, each for an address of its own: the per-client throttle is counted,
 * never the daily pause of one address.
 */
async function wrongCode(client: WebClient): Promise<number> {
  wrongCodes += 1;
  const email = `nobody-${wrongCodes}@example.com`;
  return (await client.post("/app/sign-in/code", { email, code: "000000" })).status;
}
describe("embedded: the gateway mounts /app and nothing else of the workspace", () => {
  let h: WebHarness;
  beforeAll(async () => {
    h = await webHarness();
  }, 60_000);
  afterAll(() => h?.close());

  test("GET /app/sign-in is the sign-in page with its email field and CSRF token", async () => {
    const answer = await fetch(`${h.url}/app/sign-in`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toStartWith("text/html");
    const page = await answer.text();
    expect(page).toContain('name="email"');
    expect(page).toMatch(/<input type="hidden" name="_csrf" value="[A-Za-z0-9_-]{43}">/);
    expect(answer.headers.get("set-cookie")).toContain("nr_csrf=");
  });

  test("a path of the app asked with another method is a 405 page naming the allowed ones", async () => {
    const answer = await fetch(`${h.url}/app/sign-in`, { method: "DELETE" });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(answer.headers.get("content-type")).toStartWith("text/html");
    expect(answer.headers.get("x-request-id")).toBeTruthy();
  });

  for (const path of ["/internal/v1/orgs", "/internal/v1/orgs/anything/members"]) {
    test(`${path} through the gateway is 404, even with the admin token`, async () => {
      const token = adminToken(loadConfig({}));
      for (const method of ["GET", "POST"]) {
        const answer = await fetch(`${h.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: method === "POST" ? JSON.stringify({ slug: "sneaky", name: "Sneaky" }) : undefined,
        });
        expect(answer.status).toBe(404);
      }
      const orgs = await h.admin("GET", "/orgs/sneaky");
      expect(orgs.status).toBe(404);
    });
  }

  test("the stylesheet is served by the app", async () => {
    const answer = await fetch(`${h.url}/app/styles.css`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toStartWith("text/css");
  });
});

/**
 * The workspace process behind a gateway in distributed mode, both on 127.0.0.1; the gateway
 * believes X-Forwarded-For from `trustedProxies` (a load balancer in front of it).
 */
function distributedWorkspace(trustedProxies: string, options: { webPort?: boolean } = {}) {
  const world = {} as {
    database: TestDatabase;
    /** The workspace process: its addresses (WORKSPACE_PORT, the web app's), and its stop. */
    workspace: { url: string; webUrl: string; stop(): Promise<void> };
    gateway: ReturnType<typeof Bun.serve>;
    base: string;
  };
  const bus = new MemoryBus();
  beforeAll(async () => {
    world.database = await testDatabase({ backend: "pglite" });
    const port = await freePort();
    // The workspace believes the gateway's X-Client-Ip only from GATEWAY_ADDRESSES (loopback by
    // default).
    const config = loadConfig({
      PORT: String(port),
      WORKSPACE_PORT: String(await freePort()),
      ...(options.webPort ? { WORKSPACE_WEB_PORT: String(await freePort()) } : {}),
    });
    const runtime = testRuntime({
      database: world.database,
      config,
      bus,
      rateLimits: new MemoryRateLimitStore(),
    });
    const service = await createWorkspaceService(runtime);
    const server = serveWorkspace(config, service, { hostname: "127.0.0.1" });
    world.workspace = {
      url: server.url,
      webUrl: server.webUrl,
      stop: async () => {
        await server.stop();
        await service.stop();
        await runtime.close();
      },
    };
    const app = createGateway({
      config,
      mode: "distributed",
      rateLimits: new MemoryRateLimitStore(),
      upstreams: { workspace: httpUpstream(world.workspace.webUrl, "workspace") },
      readinessChecks: [],
    });
    world.gateway = Bun.serve({
      port,
      hostname: "127.0.0.1",
      fetch: edge((request) => app.handle(request), { trustedProxies }),
    });
    world.base = `http://localhost:${port}`;
  });
  afterAll(async () => {
    world.gateway?.stop(true);
    await world.workspace?.stop();
    await bus.close();
    await world.database?.close();
  });
  return world;
}

describe("distributed: the gateway forwards /app to WORKSPACE_URL", () => {
  const world = distributedWorkspace("");

  test("the sign-in page comes from the workspace process", async () => {
    const answer = await fetch(`${world.base}/app/sign-in`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('action="/app/sign-in"');
  });

  test("the internal API is 404 through the gateway, though the workspace port serves it", async () => {
    const { base, workspace } = world;
    const token = adminToken(loadConfig({}));
    const headers = { authorization: `Bearer ${token}` };
    expect((await fetch(`${base}/internal/v1/orgs/x`, { headers })).status).toBe(404);
    expect((await fetch(`${workspace.url}/internal/v1/orgs/x`, { headers })).status).toBe(404);
    const created = await fetch(`${workspace.url}/internal/v1/orgs`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ slug: "direct", name: "Direct" }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${base}/internal/v1/orgs/direct`, { headers })).status).toBe(404);
  });
});

describe("distributed: sign-in throttles count the person's address, not the gateway's", () => {
  const world = distributedWorkspace("127.0.0.1/32");

  test("one address past its code checks is throttled; another address is not", async () => {
    const first = new WebClient(world.base, "203.0.113.7");
    const second = new WebClient(world.base, "198.51.100.9");
    await first.get("/app/sign-in/code");
    await second.get("/app/sign-in/code");
    for (let i = 0; i < SIGN_IN_LIMITS.checksPerClient; i++)
      expect(await wrongCode(first)).toBe(400);
    expect(await wrongCode(first)).toBe(429);
    expect(await wrongCode(second)).toBe(400);
  });
});

describe("distributed with WORKSPACE_WEB_PORT: the web app and the internal API on ports of their own", () => {
  const world = distributedWorkspace("127.0.0.1/32", { webPort: true });
  const headers = { authorization: `Bearer ${adminToken(loadConfig({}))}` };

  test("the gateway reaches the web app on its port; the internal API port does not serve it", async () => {
    const { base, workspace } = world;
    expect(workspace.webUrl).not.toBe(workspace.url);
    const page = await fetch(`${base}/app/sign-in`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('action="/app/sign-in"');
    const onApiPort = await fetch(`${workspace.url}/app/sign-in`, {
      headers: { "x-client-ip": "203.0.113.50" },
    });
    expect(onApiPort.status).toBe(404);
    expect((await onApiPort.json()).error.code).toBe("not_found");
  });

  test("the internal API answers on its port only; both ports answer the health probes", async () => {
    const { workspace } = world;
    const created = await fetch(`${workspace.url}/internal/v1/orgs`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ slug: "split", name: "Split" }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${workspace.webUrl}/internal/v1/orgs/split`, { headers })).status).toBe(
      404,
    );
    for (const url of [workspace.url, workspace.webUrl]) {
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    }
  });

  test("the sign-in throttles still count the person's address given by the gateway", async () => {
    const first = new WebClient(world.base, "203.0.113.8");
    const second = new WebClient(world.base, "198.51.100.10");
    await first.get("/app/sign-in/code");
    await second.get("/app/sign-in/code");
    for (let i = 0; i < SIGN_IN_LIMITS.checksPerClient; i++) {
      expect(await wrongCode(first)).toBe(400);
    }
    expect(await wrongCode(first)).toBe(429);
    expect(await wrongCode(second)).toBe(400);
  });
});
