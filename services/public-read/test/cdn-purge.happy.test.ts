import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { log } from "@newsroom/shared/log";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import { storyActionOnBus } from "./support/events.ts";
import { approvedStory, client, houseAndClientWithSite, testConfig } from "./support/world.ts";

const TOKEN = "cdn-token-not-for-logs-7f3a";
const ZONE = "zone0123";

interface ProviderRequest {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

/** A fake CDN API on 127.0.0.1: records every request; answers 200 unless told to fail. */
function startFakeProvider() {
  const requests: ProviderRequest[] = [];
  let failures = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      requests.push({
        method: request.method,
        path: new URL(request.url).pathname,
        headers: request.headers,
        body: await request.text(),
      });
      if (failures > 0) {
        failures -= 1;
        return new Response("busy", { status: 503 });
      }
      return Response.json({ success: true });
    },
  });
  return {
    requests,
    base: `http://127.0.0.1:${server.port}`,
    failNext(count: number) {
      failures = count;
    },
    stop: () => server.stop(true),
  };
}

type FakeProvider = ReturnType<typeof startFakeProvider>;

let database: TestDatabase;
let houseId: string;
let clientOrgId: string;
let provider: FakeProvider;

beforeAll(async () => {
  database = await testDatabase();
  ({ houseId, clientOrgId } = await houseAndClientWithSite(database.db));
  provider = startFakeProvider();
});

afterAll(async () => {
  provider.stop();
  await database.close();
});

async function transition(bus: MemoryBus, storyId: string, action: "publish" | "unpublish") {
  await storyActionOnBus(database.db, bus, storyId, action);
}

/** The tags one provider request asks to purge, in the provider's own shape. */
function purgedTags(request: ProviderRequest): string[] {
  const surrogate = request.headers.get("surrogate-key");
  if (surrogate !== null) return surrogate.split(" ");
  return (JSON.parse(request.body) as { tags: string[] }).tags;
}

async function withService(
  env: Record<string, string>,
  body: (bus: MemoryBus, get: ReturnType<typeof client>) => Promise<void>,
) {
  const bus = new MemoryBus();
  const service = await createPublicReadService(
    testRuntime({ database, bus, config: testConfig(env) }),
    {
      cdnPurge: { backoffMs: [20, 20], timeoutMs: 2_000 },
    },
  );
  try {
    await body(bus, client(service));
  } finally {
    await service.stop();
    await bus.close();
  }
}

const PROVIDERS = {
  cloudflare: {
    path: `/zones/${ZONE}/purge_cache`,
    auth: (headers: Headers) => ({
      authorization: headers.get("authorization"),
      "content-type": headers.get("content-type"),
    }),
    expectedAuth: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
  },
  fastly: {
    path: `/service/${ZONE}/purge`,
    auth: (headers: Headers) => ({
      "fastly-key": headers.get("fastly-key"),
      authorization: headers.get("authorization"),
    }),
    expectedAuth: { "fastly-key": TOKEN, authorization: null },
  },
} as const;

for (const [name, shape] of Object.entries(PROVIDERS)) {
  describe(`CDN purge through ${name}`, () => {
    const env = () => ({
      CDN_PURGE_PROVIDER: name,
      CDN_PURGE_API_BASE: provider.base,
      CDN_PURGE_TOKEN: TOKEN,
      CDN_PURGE_ZONE: ZONE,
    });

    test("a publish and an unpublish of a house story purge the tags its answers carry", async () => {
      const slug = `house-${name}`;
      const storyId = await approvedStory(database.db, houseId, slug, ["world", `energy-${name}`]);
      const expected = [
        `content:${storyId}`,
        "newsroom-index",
        `topic:energy-${name}`,
        "topic:world",
        "search",
        "sitemap",
      ].sort();
      await withService(env(), async (bus, get) => {
        const before = provider.requests.length;
        await transition(bus, storyId, "publish");
        const published = await eventually(() => provider.requests.slice(before)[0], {
          message: "the publish purge",
        });
        expect(published.method).toBe("POST");
        expect(published.path).toBe(shape.path);
        expect(shape.auth(published.headers)).toEqual(shape.expectedAuth);
        expect(purgedTags(published).sort()).toEqual(expected);

        // Every tag the public answers that show the story carry is purged: the same builders.
        for (const path of [
          `/v1/public/newsroom/${slug}`,
          "/v1/public/newsroom",
          "/v1/public/newsroom?topic=world",
          "/v1/public/topics/world",
          "/v1/public/search/newsroom",
          "/v1/public/sitemap/newsroom",
        ]) {
          const answer = await get(path);
          expect({ path, status: answer.status }).toEqual({ path, status: 200 });
          const tags = answer.headers.get("cache-tag")!.split(",");
          expect({ path, missing: tags.filter((tag) => !expected.includes(tag)) }).toEqual({
            path,
            missing: [],
          });
        }

        await transition(bus, storyId, "unpublish");
        const unpublished = await eventually(() => provider.requests.slice(before)[1], {
          message: "the unpublish purge",
        });
        expect(unpublished.path).toBe(shape.path);
        expect(shape.auth(unpublished.headers)).toEqual(shape.expectedAuth);
        expect(purgedTags(unpublished).sort()).toEqual(expected);
        await Bun.sleep(100);
        expect(provider.requests.length - before).toBe(2);
      });
    });

    test("a client's story purges its site's tags, never the whole site", async () => {
      const slug = `client-${name}`;
      const storyId = await approvedStory(database.db, clientOrgId, slug, ["launches"]);
      await withService(env(), async (bus, get) => {
        const before = provider.requests.length;
        await transition(bus, storyId, "publish");
        const request = await eventually(() => provider.requests.slice(before)[0], {
          message: "the purge",
        });
        const tags = purgedTags(request).sort();
        expect(tags).toEqual(
          [
            `content:${storyId}`,
            "site:client-news:newsroom-index",
            "site:client-news:topic:launches",
            "site:client-news:sitemap",
          ].sort(),
        );
        const item = await get(`/v1/public/sites/client-news/newsroom/${slug}`);
        expect(item.status).toBe(200);
        // The item's tags: the site-wide tag (not purged by one story) and its content tag.
        expect(item.headers.get("cache-tag")!.split(",")).toEqual([
          "site:client-news",
          `content:${storyId}`,
        ]);
      });
    });
  });
}

describe("CDN purge failures", () => {
  test("retried with backoff, then logged without the token", async () => {
    const storyId = await approvedStory(database.db, houseId, "retried-story", []);
    const lines: string[] = [];
    const writes = { out: process.stdout.write, err: process.stderr.write };
    const capture = ((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    process.stdout.write = capture;
    process.stderr.write = capture;
    log.setSilent(false);
    try {
      await withService(
        {
          CDN_PURGE_PROVIDER: "cloudflare",
          CDN_PURGE_API_BASE: provider.base,
          CDN_PURGE_TOKEN: TOKEN,
          CDN_PURGE_ZONE: ZONE,
        },
        async (bus) => {
          const before = provider.requests.length;
          provider.failNext(2);
          await transition(bus, storyId, "publish");
          await eventually(() => provider.requests.length - before >= 3, {
            message: "three tries",
          });
          const tries = provider.requests.slice(before);
          expect(tries.map((request) => purgedTags(request).sort())).toEqual([
            purgedTags(tries[0]!).sort(),
            purgedTags(tries[0]!).sort(),
            purgedTags(tries[0]!).sort(),
          ]);
        },
      );
    } finally {
      process.stdout.write = writes.out;
      process.stderr.write = writes.err;
      log.setSilent(true);
    }
    const warnings = lines.filter((line) => line.includes("CDN purge failed"));
    expect(warnings).toHaveLength(2);
    expect(lines.join("")).not.toContain(TOKEN);
  });
});

describe("CDN purge off (the default)", () => {
  test("a publish and an unpublish send nothing", async () => {
    const storyId = await approvedStory(database.db, houseId, "quiet-story", ["world"]);
    const before = provider.requests.length;
    await withService({}, async (bus) => {
      await transition(bus, storyId, "publish");
      await transition(bus, storyId, "unpublish");
      await Bun.sleep(300);
    });
    expect(provider.requests.length).toBe(before);
    expect(testConfig().CDN_PURGE_PROVIDER).toBe("off");
  });

  test("a provider without its token or zone stops start-up, naming the variable", async () => {
    const runtime = (env: Record<string, string>) =>
      testRuntime({ database, config: testConfig(env) });
    await expect(
      createPublicReadService(runtime({ CDN_PURGE_PROVIDER: "fastly", CDN_PURGE_ZONE: ZONE })),
    ).rejects.toThrow("CDN_PURGE_TOKEN");
    await expect(
      createPublicReadService(
        runtime({ CDN_PURGE_PROVIDER: "cloudflare", CDN_PURGE_TOKEN: TOKEN }),
      ),
    ).rejects.toThrow("CDN_PURGE_ZONE");
  });
});
