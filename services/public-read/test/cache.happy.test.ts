import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { EventBus } from "@newsroom/shared/bus/index";
import { JetStreamBus } from "@newsroom/shared/bus/jetstream";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { relatedStories, sites, stories } from "@newsroom/shared/db/schema";
import { edge } from "@newsroom/shared/http/edge";
import { serviceEntry } from "@newsroom/shared/service";
import {
  activateHostnameRow,
  applyStoryAction,
  insertHostname,
  insertSite,
  insertStory,
} from "@newsroom/shared/testing/builders";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { eq } from "drizzle-orm";
import { createPublicReadService } from "../src/app.ts";
import { PUBLIC_CACHE_CONTROL } from "../src/caching/responses.ts";
import { announceSiteChange, storyActionOnBus } from "./support/events.ts";
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

async function draftStory(database: TestDatabase, orgId: string, slug: string) {
  const story = await insertStory(database.db, orgId, {
    type: "press_release",
    slug,
    title: `Title ${slug}`,
    body: [{ type: "paragraph", text: "Text" }],
    topics: ["world"],
  });
  await applyStoryAction(database.db, story.id, "submit");
  await applyStoryAction(database.db, story.id, "approve");
  return story.id;
}

/** The invalidation checks, run against each bus and each number of replicas. */
function invalidationSuite(
  name: string,
  openBus: () => Promise<{ buses: EventBus[]; cleanup: () => Promise<void> }>,
) {
  describe(name, () => {
    let buses: EventBus[];
    let cleanup: () => Promise<void>;
    let database: TestDatabase;
    let orgId: string;
    let replicas: Service[];
    let gets: ((path: string) => Promise<Answer>)[];

    beforeAll(async () => {
      ({ buses, cleanup } = await openBus());
      ({ database, orgId } = await newsroomOn());
      replicas = [];
      for (const bus of buses) {
        replicas.push(
          await createPublicReadService(testRuntime({ database, bus, config: testConfig() })),
        );
      }
      gets = replicas.map((replica) => client(replica));
    }, SLOW);
    afterAll(async () => {
      for (const replica of replicas) await replica.stop();
      await cleanup();
      await database.close();
    });

    test(
      "a publish shows at once on every replica; without an event the cache holds",
      async () => {
        for (const get of gets) {
          expect(slugsOf(await get("/v1/public/newsroom"))).toEqual(["first-story"]);
          expect((await get("/v1/public/newsroom/fresh-story")).status).toBe(404);
        }
        // Written without an event: every replica keeps its cached answer.
        await seedStories(database.db, orgId, [
          { type: "event", status: "published", slug: "silent-story", topics: [], ageDays: 0.05 },
        ]);
        for (const get of gets) {
          expect(slugsOf(await get("/v1/public/newsroom"))).toEqual(["first-story"]);
        }

        const storyId = await draftStory(database, orgId, "fresh-story");
        const published = await storyActionOnBus(database.db, buses[0]!, storyId, "publish");
        expect(published?.type).toBe("story.published");
        for (const [index, get] of gets.entries()) {
          await eventually(
            async () => slugsOf(await get("/v1/public/newsroom"))[0] === "fresh-story",
            { message: `replica ${index} shows the published story` },
          );
          expect(slugsOf(await get("/v1/public/newsroom"))).toEqual([
            "fresh-story",
            "silent-story",
            "first-story",
          ]);
          // The cached 404 of the item went too.
          expect((await get("/v1/public/newsroom/fresh-story")).status).toBe(200);
        }

        await storyActionOnBus(database.db, buses[0]!, storyId, "unpublish");
        for (const [index, get] of gets.entries()) {
          await eventually(
            async () => (await get("/v1/public/newsroom/fresh-story")).status === 404,
            { message: `replica ${index} drops the unpublished story` },
          );
          expect(slugsOf(await get("/v1/public/newsroom"))).not.toContain("fresh-story");
          expect((await get("/v1/public/search/newsroom")).text).not.toContain("fresh-story");
        }
      },
      SLOW,
    );

    test(
      "a site change shows at once on every replica",
      async () => {
        const site = await insertSite(database.db, orgId, {
          slug: "house-site",
          name: "House Site",
          publisher: "House",
        });
        await insertHostname(database.db, site, "news.house.example", { active: false });
        await announceSiteChange(buses[0]!, orgId, "house-site");
        for (const [index, get] of gets.entries()) {
          await eventually(async () => (await get("/v1/public/sites/house-site")).status === 200, {
            message: `replica ${index} sees the new site`,
          });
          const record = await get("/v1/public/sites/house-site");
          expect(record.body.canonical_url).toBe("https://newsrooms.example.test/n/house-site");
          expect((await get("/v1/public/hosts/news.house.example")).status).toBe(404);
        }

        await activateHostnameRow(database.db, "news.house.example");
        await database.db
          .update(sites)
          .set({ name: "House Site Renamed" })
          .where(eq(sites.slug, "house-site"));
        // Still cached until the change is announced.
        for (const get of gets) {
          expect((await get("/v1/public/sites/house-site")).body.name).toBe("House Site");
        }
        await announceSiteChange(buses[0]!, orgId, "house-site");
        for (const [index, get] of gets.entries()) {
          await eventually(
            async () =>
              (await get("/v1/public/sites/house-site")).body.name === "House Site Renamed",
            { message: `replica ${index} sees the renamed site` },
          );
          const record = await get("/v1/public/sites/house-site");
          expect(record.body.canonical_url).toBe("https://news.house.example");
          expect((await get("/v1/public/hosts/NEWS.house.example")).status).toBe(200);
        }

        await database.db.update(sites).set({ enabled: false }).where(eq(sites.slug, "house-site"));
        await announceSiteChange(buses[0]!, orgId, "house-site");
        for (const [index, get] of gets.entries()) {
          await eventually(
            async () => (await get("/v1/public/hosts/news.house.example")).status === 404,
            { message: `replica ${index} stops serving the disabled site` },
          );
          expect((await get("/v1/public/sites/house-site")).status).toBe(404);
        }
      },
      SLOW,
    );
  });
}

invalidationSuite("invalidation on the in-process bus, two replicas", async () => {
  const bus = new MemoryBus();
  return { buses: [bus, bus], cleanup: () => bus.close() };
});

const natsUrl = requireService("NATS_URL");

if (natsUrl) {
  invalidationSuite("invalidation on the real JetStream, two replicas", async () => {
    const suffix = Math.random().toString(36).slice(2, 8);
    const stream = `T_PUBREAD_${suffix.toUpperCase()}`;
    const options = { stream, subjectPrefix: `t${suffix}.` };
    // One connection per replica, as separate processes would have.
    const buses = [
      await JetStreamBus.connect(natsUrl, options),
      await JetStreamBus.connect(natsUrl, options),
    ];
    return {
      buses,
      cleanup: async () => {
        for (const bus of buses) await bus.close();
        const nc = await connect({ servers: natsUrl });
        await (await jetstreamManager(nc)).streams.delete(stream);
        await nc.close();
      },
    };
  });
} else {
  test.skip("invalidation on the real JetStream (NATS_URL not set)", () => {});
}

describe("a publish drops only the answers it changes", () => {
  test(
    "another organization's answers and an unrelated item stay cached; every answer showing the story is new",
    async () => {
      const bus = new MemoryBus();
      const { database, orgId } = await newsroomOn();
      const [other] = await seedStories(database.db, orgId, [
        { type: "insight", status: "published", slug: "other-story", topics: ["culture"] },
      ]);
      const [first] = await database.db
        .select({ id: stories.id })
        .from(stories)
        .where(eq(stories.slug, "first-story"));
      const clientOrg = await createOrg(database.db, "client-org", true);
      await insertSite(database.db, clientOrg, {
        slug: "client-site",
        name: "Client",
        publisher: "Client",
      });
      const [clientStory] = await seedStories(database.db, clientOrg, [
        { type: "insight", status: "published", slug: "client-story", topics: ["world"] },
      ]);
      const service = await createPublicReadService(
        testRuntime({ database, bus, config: testConfig() }),
      );
      const get = client(service);
      try {
        const storyId = await draftStory(database, orgId, "fresh-story");
        // The first story names the new one as related: its item lists it once published.
        await database.db
          .insert(relatedStories)
          .values({ storyId: first!.id, relatedStoryId: storyId, position: 0 });
        const untouched = [
          `/v1/public/newsroom/${other!.slug}`,
          "/v1/public/topics/culture",
          "/v1/public/sites/client-site",
          "/v1/public/sites/client-site/newsroom",
          `/v1/public/sites/client-site/newsroom/${clientStory!.slug}`,
          "/v1/public/sites/client-site/topics/world",
        ];
        const changed = [
          "/v1/public/newsroom",
          "/v1/public/newsroom?topic=world",
          "/v1/public/newsroom/first-story",
          "/v1/public/newsroom/fresh-story",
          "/v1/public/topics/world",
          "/v1/public/search/newsroom",
          "/v1/public/sitemap/newsroom",
        ];
        const before = new Map<string, string>();
        for (const path of [...untouched, ...changed]) before.set(path, (await get(path)).text);
        for (const path of [...untouched, ...changed]) {
          expect(service.cache.getByTarget(path), path).toBeDefined();
        }
        expect((await get("/v1/public/newsroom/fresh-story")).status).toBe(404);

        await storyActionOnBus(database.db, bus, storyId, "publish");
        await eventually(
          async () => service.cache.getByTarget("/v1/public/newsroom") === undefined,
          { message: "the house index is dropped" },
        );
        // Still the very entries read before the publish: never read again.
        for (const path of untouched) {
          expect(service.cache.getByTarget(path), path).toBeDefined();
          expect((await get(path)).text, path).toBe(before.get(path)!);
        }
        for (const path of changed) {
          expect(service.cache.getByTarget(path), path).toBeUndefined();
          const answer = await get(path);
          expect(answer.status, path).toBe(200);
          expect(answer.text, path).toContain(
            path.endsWith("first-story") ? storyId : "fresh-story",
          );
        }
      } finally {
        await service.stop();
        await bus.close();
        await database.close();
      }
    },
    SLOW,
  );

  test(
    "a site change drops that site's answers and its hostnames', not another site's",
    async () => {
      const bus = new MemoryBus();
      const { database } = await newsroomOn();
      const orgId = await createOrg(database.db, "sites-org", true);
      const siteOne = await insertSite(database.db, orgId, {
        slug: "site-one",
        name: "site-one",
        publisher: "P",
      });
      await insertSite(database.db, orgId, { slug: "site-two", name: "site-two", publisher: "P" });
      const service = await createPublicReadService(
        testRuntime({ database, bus, config: testConfig() }),
      );
      const get = client(service);
      try {
        expect((await get("/v1/public/sites/site-one")).status).toBe(200);
        expect((await get("/v1/public/sites/site-two")).status).toBe(200);
        expect((await get("/v1/public/hosts/news.one.example")).status).toBe(404);
        expect((await get("/v1/public/newsroom")).status).toBe(200);
        await insertHostname(database.db, siteOne, "news.one.example");
        await announceSiteChange(bus, orgId, "site-one");
        await eventually(
          async () => (await get("/v1/public/hosts/news.one.example")).status === 200,
          { message: "the new hostname answers" },
        );
        expect(service.cache.getByTarget("/v1/public/sites/site-two")).toBeDefined();
        expect(service.cache.getByTarget("/v1/public/newsroom")).toBeDefined();
        expect((await get("/v1/public/sites/site-one")).body.canonical_url).toBe(
          "https://news.one.example",
        );
      } finally {
        await service.stop();
        await bus.close();
        await database.close();
      }
    },
    SLOW,
  );
});

describe("the read cache", () => {
  test(
    "is bounded and keyed by the normalized request",
    async () => {
      const bus = new MemoryBus();
      const { database } = await newsroomOn();
      const service = await createPublicReadService(
        testRuntime({ database, bus, config: testConfig() }),
        {
          cache: { maxEntries: 3 },
        },
      );
      const get = client(service);
      try {
        await get("/v1/public/newsroom?type=insight&topic=world");
        await get("/v1/public/newsroom?topic=world&type=insight&ignored=1");
        expect(service.cache.size).toBe(1);
        for (const path of [
          "/v1/public/newsroom",
          "/v1/public/search/newsroom",
          "/v1/public/sitemap/newsroom",
          "/v1/public/topics/world",
        ]) {
          await get(path);
        }
        expect(service.cache.size).toBe(3);
        // Targets that differ only in ignored parameters are remembered within a bound.
        for (let n = 0; n < 20; n++) await get(`/v1/public/newsroom?ignored=${n}`);
        expect(service.cache.targetCount).toBeLessThanOrEqual(12);
        // A padded target is answered but not remembered.
        const padded = `/v1/public/newsroom?ignored=${"x".repeat(2_000)}`;
        expect((await get(padded)).status).toBe(200);
        expect(service.cache.getByTarget(padded)).toBeUndefined();
      } finally {
        await service.stop();
        await bus.close();
        await database.close();
      }
    },
    SLOW,
  );
});

describe("answers given again without routing", () => {
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

  test("a target answered before is remembered with its route; a new one is routed and checked", async () => {
    const first = await get("/v1/public/newsroom?type=insight");
    expect(first.status).toBe(200);
    expect(service.cache.getByTarget("/v1/public/newsroom?type=insight")?.route).toBe(
      "/v1/public/newsroom",
    );
    const again = await get("/v1/public/newsroom?type=insight");
    expect(again.text).toBe(first.text);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    // The same parameters repeated, or a bad one, are checked: never answered from the cache.
    for (const path of [
      "/v1/public/newsroom?type=insight&type=insight",
      "/v1/public/newsroom?type=nope",
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(400);
      expect(service.cache.getByTarget(path), path).toBeUndefined();
    }
  });

  test("If-None-Match answers 304 from a remembered target", async () => {
    const first = await get("/v1/public/newsroom");
    const etag = first.headers.get("etag")!;
    expect(service.cache.getByTarget("/v1/public/newsroom")).toBeDefined();
    const answer = await get("/v1/public/newsroom", { "if-none-match": etag });
    expect(answer.status).toBe(304);
    expect(answer.text).toBe("");
    expect(answer.headers.get("cache-tag")).toBe("newsroom-index");
  });

  test("a remembered 404 names each request's own id", async () => {
    const path = "/v1/public/newsroom/no-such-item";
    const first = await get(path);
    expect(service.cache.getByTarget(path)?.answer.status).toBe(404);
    const answers = [first, await get(path)];
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=60");
      expect(answer.body.error.request_id).toBe(answer.headers.get("x-request-id"));
    }
    expect(answers[0]!.headers.get("x-request-id")).not.toBe(
      answers[1]!.headers.get("x-request-id"),
    );
  });

  test("another method on a remembered target is routed: 405 with Allow", async () => {
    await get("/v1/public/sitemap/newsroom");
    const response = await serviceEntry(service)(
      new Request("http://localhost/v1/public/sitemap/newsroom", { method: "POST" }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toContain("GET");
  });

  test("a publish drops what a remembered target read: the next answer is new", async () => {
    const before = await get("/v1/public/newsroom");
    const storyId = await draftStory(database, orgId, "second-story");
    await storyActionOnBus(database.db, bus, storyId, "publish");
    await eventually(async () => service.cache.getByTarget("/v1/public/newsroom") === undefined, {
      message: "the remembered answer is dropped",
    });
    const after = await get("/v1/public/newsroom");
    expect(slugsOf(after)).toEqual(["second-story", ...slugsOf(before)]);
  });
});
