import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { edge } from "@newsroom/shared/http/edge";
import { serviceEntry } from "@newsroom/shared/service";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import { PUBLIC_CACHE_CONTROL } from "../src/caching/responses.ts";
import {
  type Answer,
  buildWorld,
  client,
  createOrg,
  HOUSE_ORG,
  type Service,
  seedStories,
  testConfig,
  type World,
} from "./support/world.ts";

const SLOW = 60_000;

function slugsOf(answer: Answer): string[] {
  return answer.body.items.map((item: { slug: string }) => item.slug);
}

describe("caching headers over real HTTP", () => {
  let world: World;
  let server: ReturnType<typeof Bun.serve>;
  let base: string;

  beforeAll(async () => {
    world = await buildWorld();
    const fetch = edge(serviceEntry(world.service), { trustedProxies: "" });
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch });
    base = `http://127.0.0.1:${server.port}`;
  }, SLOW);
  afterAll(async () => {
    await server.stop(true);
    await world.close();
  });

  test("every 200 carries the spec's Cache-Control and its purge keys", async () => {
    const item = world.house.published[0]!;
    const itemAnswer = await fetch(`${base}/v1/public/newsroom/${item.slug}`).then((r) => r.json());
    const related = itemAnswer.related.map((r: { id: string }) => `content:${r.id}`);
    const siteItem = world.client.published[0]!;
    const siteItemAnswer = await fetch(
      `${base}/v1/public/sites/client-news/newsroom/${siteItem.slug}`,
    ).then((r) => r.json());
    const siteRelated = siteItemAnswer.related.map((r: { id: string }) => `content:${r.id}`);
    const cases: [string, string[]][] = [
      ["/v1/public/newsroom", ["newsroom-index"]],
      ["/v1/public/newsroom?topic=h-topic-all", ["newsroom-index", "topic:h-topic-all"]],
      [`/v1/public/newsroom/${item.slug}`, [`content:${item.id}`, ...related]],
      ["/v1/public/topics/h-topic-all", ["topic:h-topic-all"]],
      ["/v1/public/search/newsroom", ["search"]],
      ["/v1/public/sitemap/newsroom", ["sitemap"]],
      ["/v1/public/sites/client-news", ["site:client-news"]],
      [
        "/v1/public/sites/client-news/newsroom",
        ["site:client-news", "site:client-news:newsroom-index"],
      ],
      [
        `/v1/public/sites/client-news/newsroom/${siteItem.slug}`,
        ["site:client-news", `content:${siteItem.id}`, ...siteRelated],
      ],
      [
        "/v1/public/sites/client-news/topics/c-topic-all",
        ["site:client-news", "site:client-news:topic:c-topic-all"],
      ],
      ["/v1/public/sites/client-news/sitemap", ["site:client-news", "site:client-news:sitemap"]],
      ["/v1/public/hosts/news.client.example", ["site:client-news", "host:news.client.example"]],
    ];
    for (const [path, tags] of cases) {
      const response = await fetch(base + path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("cache-control")).toBe(
        "public, s-maxage=300, stale-while-revalidate=86400, stale-if-error=604800",
      );
      expect(response.headers.get("cache-tag")?.split(","), path).toEqual(tags);
      expect(response.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(response.headers.get("x-request-id")).toMatch(/^req_/);
      expect(response.headers.get("x-service-version")).toBeTruthy();
      await response.arrayBuffer();
    }
  });

  test("If-None-Match with the ETag answers 304 without a body", async () => {
    const path = `${base}/v1/public/newsroom`;
    const first = await fetch(path);
    const etag = first.headers.get("etag")!;
    const body = await first.text();
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await fetch(path, { headers: { "if-none-match": header } });
      expect(again.status, header).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe(PUBLIC_CACHE_CONTROL);
      expect(again.headers.get("cache-tag")).toBe("newsroom-index");
    }
    const other = await fetch(path, { headers: { "if-none-match": '"something-else"' } });
    expect(other.status).toBe(200);
    expect(await other.text()).toBe(body);
    // The ETag names the body: another page has another one.
    const filtered = await fetch(`${path}?type=video`);
    expect(filtered.headers.get("etag")).not.toBe(etag);
    await filtered.arrayBuffer();
  });
});

/** A house newsroom with one published story. */
async function newsroomOn() {
  const db = await testDatabase();
  const orgId = await createOrg(db.db, HOUSE_ORG, true);
  await seedStories(db.db, orgId, [
    { type: "insight", status: "published", slug: "first-story", topics: ["world"] },
  ]);
  return { database: db, orgId };
}

describe("every read answered from the database", () => {
  let database: TestDatabase;
  let orgId: string;
  let bus: MemoryBus;
  let service: Service;
  let get: ReturnType<typeof client>;

  beforeAll(async () => {
    bus = new MemoryBus();
    ({ database, orgId } = await newsroomOn());
    service = await createPublicReadService(testRuntime({ database, bus, config: testConfig() }));
    get = client(service);
  }, SLOW);
  afterAll(async () => {
    await service.stop();
    await bus.close();
    await database.close();
  });

  // The gateway keeps public answers (its one cache, purged once per change): public-read keeps
  // none, so a read after a purge always sees the change.
  test("a story written shows on the next read, with no event", async () => {
    const before = await get("/v1/public/newsroom");
    expect(slugsOf(before)).toEqual(["first-story"]);
    await seedStories(database.db, orgId, [
      { type: "event", status: "published", slug: "silent-story", topics: [], ageDays: 0.05 },
    ]);
    const after = await get("/v1/public/newsroom");
    expect(slugsOf(after)).toEqual(["silent-story", "first-story"]);
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
  });

  test("a 404 names each request's own id", async () => {
    const path = "/v1/public/newsroom/no-such-item";
    const answers = [await get(path), await get(path)];
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=60");
      expect(answer.body.error.request_id).toBe(answer.headers.get("x-request-id"));
    }
    expect(answers[0]!.headers.get("x-request-id")).not.toBe(
      answers[1]!.headers.get("x-request-id"),
    );
  });

  test("the same parameters repeated, or a bad one, are refused", async () => {
    for (const path of [
      "/v1/public/newsroom?type=insight&type=insight",
      "/v1/public/newsroom?type=nope",
    ]) {
      expect((await get(path)).status, path).toBe(400);
    }
  });

  test("another method on a read's path: 405 with Allow", async () => {
    await get("/v1/public/sitemap/newsroom");
    const response = await serviceEntry(service)(
      new Request("http://localhost/v1/public/sitemap/newsroom", { method: "POST" }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toContain("GET");
  });
});
