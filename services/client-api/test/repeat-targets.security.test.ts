import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { KnownTargets } from "@newsroom/shared/http/known-targets";
import { MAX_KEPT_TARGET_LENGTH } from "@newsroom/shared/http/public-answers";
import { edgeInProcess } from "@newsroom/shared/testing/edge";
import { createClientApiApp } from "../src/app.ts";
import { clientApiFixture, type Fixture, PUBLIC_BASE_URL } from "./support/fixture.ts";

/**
 * A GET target a route answered once is answered again before the router (repeatedTarget).
 * Each case here is asked of the fixture's app after the target was remembered, and of an app
 * that never saw it (its router): both must give the same answer, to the header.
 */
describe("a repeated target answers as its route does", () => {
  let f: Fixture;
  let routed: (path: string, key?: string) => Promise<Response>;
  let routerOnly: ReturnType<typeof createClientApiApp>;

  beforeAll(async () => {
    f = await clientApiFixture();
    routerOnly = createClientApiApp({
      db: f.db,
      config: loadConfig({
        SERVICE_ENV: "development",
        NEWSROOM_HOST: "https://news.example.com",
        PUBLIC_BASE_URL,
      }),
    });
    const handle = edgeInProcess((request) => routerOnly.app.handle(request));
    routed = (path, key) =>
      handle(
        new Request(`http://localhost${path}`, {
          headers: key ? { authorization: `Bearer ${key}` } : {},
        }),
      );
  });
  afterAll(async () => {
    await routerOnly.keyUsage.stop();
    await f.close();
  });

  /** What must match: status, body without the request id, and the headers but the id. */
  async function answerOf(response: Response) {
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    delete headers["x-request-id"];
    const text = await response.text();
    const body = text.startsWith("{") ? JSON.parse(text) : text;
    if (body?.error) delete body.error.request_id;
    return { status: response.status, headers, body };
  }

  async function remembered(path: string) {
    expect((await f.get(path, { key: f.a.key })).status).toBe(200);
    expect(f.api.deps.targets.get(path)).toBeDefined();
    // The app that answers by route has never seen it.
    expect(routerOnly.deps.targets.get(path)).toBeUndefined();
  }

  async function sameAsRoute(path: string, key: string | undefined, status: number) {
    const fast = await answerOf(await f.get(path, { key }));
    const byRoute = await answerOf(await routed(path, key));
    // Answered by the route, the target is now remembered there too: forget it again.
    routerOnly.deps.targets.clear();
    expect(fast.status).toBe(status);
    expect(fast).toEqual(byRoute);
  }

  test("the stories list, one story, the approval queue and the endpoints, with the key that first asked and another", async () => {
    const paths = [
      "/v1/stories?limit=1",
      "/v1/stories?status=published,review_required&limit=3",
      `/v1/stories/${f.a.published[0]}`,
      "/v1/approvals?limit=5",
      "/v1/webhook_endpoints",
    ];
    for (const path of paths) {
      await remembered(path);
      await sameAsRoute(path, f.a.key, 200);
      // Another organization's key on the same target: its own data, never the first one's.
      await sameAsRoute(path.replace(f.a.published[0]!, f.b.published[0]!), f.b.key, 200);
    }
    const mine = await (await f.get(`/v1/stories/${f.a.published[0]}`, { key: f.b.key })).json();
    expect(mine.error.code).toBe("not_found");
  });

  test("every key is checked on its row: missing, unknown, revoked, expired, from elsewhere, short of the scope", async () => {
    const path = "/v1/stories?limit=2";
    await remembered(path);
    await sameAsRoute(path, undefined, 401);
    await sameAsRoute(path, f.keys.unknown, 401);
    await sameAsRoute(path, f.keys.revoked, 401);
    await sameAsRoute(path, f.keys.expired, 401);
    await sameAsRoute(path, f.keys.otherEnvironment, 401);
    await sameAsRoute(path, f.keys.allBut["stories:read"], 403);
    await remembered("/v1/approvals?limit=2");
    await sameAsRoute("/v1/approvals?limit=2", f.keys.allBut["approvals:read"], 403);
  });

  test("a cursor is checked against each caller's organization", async () => {
    const first = await (await f.get("/v1/stories?limit=1", { key: f.a.key })).json();
    const path = `/v1/stories?limit=1&cursor=${encodeURIComponent(first.next_cursor)}`;
    await remembered(path);
    await sameAsRoute(path, f.a.key, 200);
    // Organization B presenting A's cursor: refused, as the route refuses it.
    await sameAsRoute(path, f.b.key, 400);
  });

  test("only answered targets are remembered: refused parameters and missing stories are routed each time", async () => {
    const before = f.api.deps.targets.size;
    for (const path of [
      "/v1/stories?limit=0",
      "/v1/stories?limit=1&limit=2",
      "/v1/stories?status=bogus",
      `/v1/stories/${crypto.randomUUID()}`,
      "/v1/stories/not-an-id",
    ]) {
      expect((await f.get(path, { key: f.a.key })).status).toBeGreaterThanOrEqual(400);
      expect(f.api.deps.targets.get(path)).toBeUndefined();
    }
    expect(f.api.deps.targets.size).toBe(before);
  });
});

describe("KnownTargets", () => {
  test("keeps at most its count, starting over when full, and no target longer than the limit", () => {
    const targets = new KnownTargets<number>(3);
    for (let i = 0; i < 3; i++) targets.remember(`/t?${i}`, i);
    expect(targets.size).toBe(3);
    targets.remember("/t?0", 10);
    expect(targets.get("/t?0")).toBe(10);
    targets.remember("/t?3", 3);
    expect(targets.size).toBe(1);
    expect(targets.get("/t?1")).toBeUndefined();
    expect(targets.get("/t?3")).toBe(3);
    targets.remember(`/t?${"x".repeat(MAX_KEPT_TARGET_LENGTH)}`, 4);
    expect(targets.size).toBe(1);
  });
});
