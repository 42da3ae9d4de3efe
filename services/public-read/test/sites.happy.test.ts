import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hostnames, sites } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { buildWorld, NEWSROOM_HOST, type World, walkPages } from "./support/world.ts";

const SLOW = 60_000;
let world: World;
beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

describe("hosted newsroom site", () => {
  test("the record: name, publisher, accent, cleared logo, live and canonical address", async () => {
    const answer = await world.get("/v1/public/sites/client-news");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      object: "site",
      site: "client-news",
      name: "Client News",
      publisher: "Client Co",
      accent: "#123456",
      logo: {
        url: "https://cdn.example.com/client-co/logo.svg",
        alt: "alt https://cdn.example.com/client-co/logo.svg",
        kind: "logo",
      },
      live: true,
      canonical_url: "https://news.client.example",
      hostname: "news.client.example",
    });
  });

  test("without an active hostname the canonical address is {NEWSROOM_HOST}/{site}", async () => {
    const answer = await world.get(`/v1/public/sites/${world.dormant.site}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      site: "dormant-news",
      live: false,
      logo: null,
      hostname: null,
      canonical_url: `${NEWSROOM_HOST}/dormant-news`,
    });
  });

  test("the site's stories: same shape and paging as the index, on the canonical address", async () => {
    const pages = await walkPages(world.get, "/v1/public/sites/client-news/newsroom");
    const body = pages[0]!.body;
    expect(body.object).toBe("newsroom_index");
    expect(Object.keys(body).sort()).toEqual(
      ["object", "items", "featured", "types", "topics", "has_more", "next_cursor"].sort(),
    );
    for (const item of body.items) {
      expect(item.url).toBe(`https://news.client.example/${item.slug}`);
    }
    const filtered = await world.get(
      "/v1/public/sites/client-news/newsroom?type=video&topic=c-topic-all",
    );
    expect(filtered.body.items.map((i: { slug: string }) => i.slug)).toEqual(["c-video-published"]);
  });

  test("one story of the site and a topic of the site", async () => {
    const item = await world.get("/v1/public/sites/client-news/newsroom/c-insight-published");
    expect(item.status).toBe(200);
    expect(item.body.url).toBe("https://news.client.example/c-insight-published");
    expect(item.body.people).toEqual([{ name: "Editor of client-co", role: "Editor" }]);
    // The house's story with the same shape of slug is not the site's.
    const house = await world.get("/v1/public/sites/client-news/newsroom/h-insight-published");
    expect(house.status).toBe(404);

    const topic = await world.get("/v1/public/sites/client-news/topics/c-topic-all");
    expect(topic.status).toBe(200);
    expect(topic.body.topic).toEqual({
      slug: "c-topic-all",
      name: "C Topic All",
      url: "https://news.client.example/topics/c-topic-all",
    });
    expect(topic.body.items).toHaveLength(6);
  });

  test("the site sitemap uses the canonical address", async () => {
    const answer = await world.get("/v1/public/sites/client-news/sitemap");
    expect(answer.status).toBe(200);
    expect(answer.body.entries.map((e: { loc: string }) => e.loc).sort()).toEqual(
      world.client.published.map((s) => `https://news.client.example/${s.slug}`).sort(),
    );
  });

  test("a hostname resolves to the site record, in any case", async () => {
    const lower = await world.get("/v1/public/hosts/news.client.example");
    const upper = await world.get("/v1/public/hosts/NEWS.CLIENT.EXAMPLE");
    const record = await world.get("/v1/public/sites/client-news");
    expect(lower.status).toBe(200);
    expect(lower.body).toEqual(record.body);
    expect(upper.body).toEqual(record.body);
  });
});

describe("a site's canonical address follows its hostnames", () => {
  test("activating a hostname makes it canonical; disabling the site hides everything", async () => {
    const [site] = await world.database.db
      .select()
      .from(sites)
      .where(eq(sites.slug, "dormant-news"));
    await world.database.db.insert(hostnames).values({
      id: crypto.randomUUID(),
      organizationId: site!.organizationId,
      siteId: site!.id,
      hostname: "news.dormant.example",
      status: "active",
      activatedAt: new Date(),
    });
    const answer = await world.get("/v1/public/sites/dormant-news");
    expect(answer.body.canonical_url).toBe("https://news.dormant.example");
    expect((await world.get("/v1/public/hosts/news.dormant.example")).status).toBe(200);

    await world.database.db.update(sites).set({ enabled: false }).where(eq(sites.id, site!.id));
    expect((await world.get("/v1/public/sites/dormant-news")).status).toBe(404);
    expect((await world.get("/v1/public/hosts/news.dormant.example")).status).toBe(404);
    expect((await world.get("/v1/public/sites/dormant-news/sitemap")).status).toBe(404);
  });
});
