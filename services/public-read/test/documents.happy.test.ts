import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sites } from "@newsroom/shared/db/schema";
import { JsonFeed } from "@newsroom/shared/feed-formats/model";
import { eventually } from "@newsroom/shared/testing/eventually";
import { Value } from "@sinclair/typebox/value";
import { eq } from "drizzle-orm";
import Parser from "rss-parser";
import { storyPurgeTags } from "../src/caching/cache-tags.ts";
import { PUBLIC_CACHE_CONTROL } from "../src/caching/responses.ts";
import { storyPlaces } from "../src/caching/story-places-store.ts";
import { announceSiteChange, storyActionOnBus } from "./support/events.ts";
import { buildWorld, HOUSE_ORG, NEWSROOM_HOST, type World } from "./support/world.ts";
import { sitemapSchemaErrors } from "./support/xml-schema.ts";

/**
 * robots.txt, sitemap.xml and the feeds through the service: on the service's own host (the
 * house newsroom and the hosted sites' paths) and on a client's hostname; cached, tagged,
 * conditional and dropped by a publish or unpublish like the JSON routes.
 */
const SLOW = 60_000;
const ORIGIN = new URL(NEWSROOM_HOST).origin;
const CLIENT_HOST = "news.client.example";

let world: World;
beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

const onClientHost = (path: string, headers: Record<string, string> = {}) =>
  world.get(path, { host: CLIENT_HOST, ...headers });

function locsOf(xml: string): string[] {
  return [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]!);
}

describe("robots.txt", () => {
  test("the service's host: the house sitemap, each hosted site that is not live disallowed", async () => {
    const answer = await world.get("/robots.txt");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(answer.headers.get("cache-control")).toBe(PUBLIC_CACHE_CONTROL);
    expect(answer.text).toContain(`Sitemap: ${ORIGIN}/sitemap.xml\n`);
    expect(answer.text).toContain(`Disallow: /n/${world.dormant.site}/\n`);
    expect(answer.text).not.toContain(`Disallow: /n/${world.client.site}`);
    // The disabled site is not served here at all; the client site's canonical sitemap is on
    // its own hostname.
    expect(answer.text).not.toContain(world.disabled.site);
    expect(answer.text).not.toContain(`${world.client.site}/sitemap.xml`);
  });

  test("a client's hostname: its own sitemap, and 404 for a pending or unknown hostname", async () => {
    const answer = await onClientHost("/robots.txt");
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(
      `User-agent: *\nAllow: /\n\nSitemap: https://${CLIENT_HOST}/sitemap.xml\n`,
    );
    expect(answer.headers.get("cache-tag")).toContain(`host:${CLIENT_HOST}`);
    const pending = await world.get("/robots.txt", { host: world.client.pendingHost });
    expect(pending.status).toBe(404);
    const disabled = await world.get("/robots.txt", { host: world.disabled.activeHost });
    expect(disabled.status).toBe(404);
    // The service's own robots.txt is still its own after a client's was answered.
    expect((await world.get("/robots.txt")).text).toContain(`Sitemap: ${ORIGIN}/sitemap.xml`);
  });
});

describe("sitemap.xml", () => {
  test("every newsroom's validates and lists its home and its published stories only", async () => {
    const cases = [
      {
        path: "/sitemap.xml",
        headers: {} as Record<string, string>,
        home: `${ORIGIN}/newsroom`,
        org: world.house,
      },
      {
        path: "/sitemap.xml",
        headers: { host: CLIENT_HOST },
        home: `https://${CLIENT_HOST}`,
        org: world.client,
      },
      {
        // Under the service's path, a site with an active hostname lists its canonical addresses.
        path: `/n/${world.client.site}/sitemap.xml`,
        headers: {} as Record<string, string>,
        home: `https://${CLIENT_HOST}`,
        org: world.client,
      },
      {
        path: `/n/${world.dormant.site}/sitemap.xml`,
        headers: {} as Record<string, string>,
        // No active hostname: the site's address here is its canonical one. (Its content is
        // not shown: the organization's newsroom is not running.)
        home: `${NEWSROOM_HOST}/${world.dormant.site}`,
        org: { ...world.dormant, published: [] },
      },
    ];
    for (const { path, headers, home, org } of cases) {
      const answer = await world.get(path, headers);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/xml; charset=utf-8");
      expect(await sitemapSchemaErrors(answer.text, "sitemap.xsd")).toEqual([]);
      expect(locsOf(answer.text).sort()).toEqual(
        [home, ...org.published.map((story) => `${home}/${story.slug}`)].sort(),
      );
    }
    expect((await world.get("/n/no-such-site/sitemap.xml")).status).toBe(404);
    expect((await world.get("/sitemap-2.xml")).status).toBe(404);
  });
});

describe("feeds", () => {
  test("RSS and JSON Feed of each newsroom parse and list its published stories", async () => {
    const cases = [
      { base: "/newsroom", headers: {} as Record<string, string>, org: world.house },
      { base: "", headers: { host: CLIENT_HOST }, org: world.client },
      { base: `/n/${world.client.site}`, headers: {} as Record<string, string>, org: world.client },
    ];
    for (const { base, headers, org } of cases) {
      const ids = org.published.map((story) => story.id).sort();
      const rss = await world.get(`${base}/feed.xml`, headers);
      expect(rss.status, `${base}/feed.xml`).toBe(200);
      expect(rss.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
      const parsed = await new Parser().parseString(rss.text);
      expect(parsed.items.map((item) => item.guid).sort()).toEqual(ids);
      const json = await world.get(`${base}/feed.json`, headers);
      expect(json.headers.get("content-type")).toBe("application/feed+json; charset=utf-8");
      expect([...Value.Errors(JsonFeed, json.body)]).toEqual([]);
      expect(json.body.items.map((item: { id: string }) => item.id).sort()).toEqual(ids);
      expect(parsed.language).toBe("en");
      expect(json.body.language).toBe("en");
      // Both formats give an item the same address: its page here (the coverage of an
      // in_the_news item stays in JSON Feed's external_url).
      const links = new Map(parsed.items.map((item) => [item.guid, item.link]));
      for (const item of json.body.items as { id: string; url: string }[]) {
        expect(links.get(item.id), item.id).toBe(item.url);
      }
      for (const answer of [rss, json]) {
        const tags = answer.headers.get("cache-tag")!.split(",");
        expect(new Set(tags).size, tags.join(",")).toBe(tags.length);
      }
    }
    const coverage = world.client.published.find((story) => story.type === "in_the_news");
    expect(coverage).toBeDefined();
  });

  test("a site that is not live answers with X-Robots-Tag: noindex", async () => {
    const answer = await world.get(`/n/${world.dormant.site}/feed.xml`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-robots-tag")).toBe("noindex");
    expect((await world.get("/newsroom/feed.xml")).headers.get("x-robots-tag")).toBe(null);
  });
});

describe("conditional requests", () => {
  test("ETag and Last-Modified answer 304 with the caching headers and no body", async () => {
    for (const path of ["/sitemap.xml", "/newsroom/feed.xml", "/newsroom/feed.json"]) {
      const first = await world.get(path);
      const etag = first.headers.get("etag")!;
      const lastModified = first.headers.get("last-modified")!;
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(new Date(lastModified).getTime(), path).toBeGreaterThan(0);
      const byTag = await world.get(path, { "if-none-match": etag });
      expect(byTag.status, path).toBe(304);
      expect(byTag.text).toBe("");
      expect(byTag.headers.get("cache-control")).toBe(PUBLIC_CACHE_CONTROL);
      expect(byTag.headers.get("cache-tag")).toBe(first.headers.get("cache-tag"));
      expect(byTag.headers.get("last-modified")).toBe(lastModified);
      const byDate = await world.get(path, { "if-modified-since": lastModified });
      expect(byDate.status, path).toBe(304);
      const older = new Date(new Date(lastModified).getTime() - 1_000).toUTCString();
      expect((await world.get(path, { "if-modified-since": older })).status).toBe(200);
      // If-None-Match decides when both are sent.
      const both = await world.get(path, {
        "if-none-match": '"other"',
        "if-modified-since": lastModified,
      });
      expect(both.status, path).toBe(200);
    }
  });
});

describe("pages", () => {
  test("every page's head links its newsroom's feeds (autodiscovery)", async () => {
    const cases = [
      { path: "/newsroom", headers: {} as Record<string, string>, home: `${ORIGIN}/newsroom` },
      { path: "/", headers: { host: CLIENT_HOST }, home: `https://${CLIENT_HOST}` },
      { path: `/n/${world.client.site}`, headers: {}, home: `https://${CLIENT_HOST}` },
      {
        path: `/${world.client.published[0]!.slug}`,
        headers: { host: CLIENT_HOST },
        home: `https://${CLIENT_HOST}`,
      },
    ];
    for (const { path, headers, home } of cases) {
      const answer = await world.get(path, headers);
      expect(answer.status, path).toBe(200);
      const title = home.startsWith(ORIGIN) ? "Org house-news" : "Client News";
      expect(answer.text, path).toContain(
        `<link rel="alternate" type="application/rss+xml" title="${title} (RSS)" href="${home}/feed.xml">`,
      );
      expect(answer.text, path).toContain(
        `<link rel="alternate" type="application/feed+json" title="${title} (JSON Feed)" href="${home}/feed.json">`,
      );
      const feed = await world.get(new URL(`${home}/feed.json`).pathname, headers);
      if (feed.status === 200) expect(feed.body.title).toBe(title);
    }
  });

  test("index, item and topic pages: Last-Modified from what they show, 304 to If-Modified-Since", async () => {
    const item = world.client.published[0]!;
    for (const path of ["/", `/${item.slug}`, `/topics/${item.topics[0]}`]) {
      const first = await onClientHost(path);
      const lastModified = first.headers.get("last-modified");
      expect(lastModified, path).not.toBe(null);
      const again = await onClientHost(path, { "if-modified-since": lastModified! });
      expect(again.status, path).toBe(304);
      expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(again.headers.get("cache-tag")).toBe(first.headers.get("cache-tag"));
    }
  });

  test("a site that is not live: noindex in the header and the page", async () => {
    const answer = await world.get(`/n/${world.dormant.site}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-robots-tag")).toBe("noindex");
    expect(answer.text).toContain('<meta name="robots" content="noindex">');
    expect((await onClientHost("/")).headers.get("x-robots-tag")).toBe(null);
  });
});

describe("CDN purge", () => {
  test("every page, sitemap and feed that shows a story carries a tag its purge names", async () => {
    for (const org of [world.house, world.client]) {
      const story = org.published.find((s) => s.type !== "in_the_news")!;
      const purged = new Set(
        storyPurgeTags(await storyPlaces(world.database.db, org.id, story.id, HOUSE_ORG)),
      );
      const topic = story.topics[0]!;
      const answers =
        org === world.house
          ? ["/newsroom", `/newsroom/${story.slug}`, `/newsroom/topics/${topic}`, "/sitemap.xml"]
              .concat(["/newsroom/feed.xml", "/newsroom/feed.json"])
              .map((path) => ({ path, headers: {} as Record<string, string> }))
          : [
              "/",
              `/${story.slug}`,
              `/topics/${topic}`,
              "/sitemap.xml",
              "/feed.xml",
              "/feed.json",
            ].flatMap((path) => [
              { path, headers: { host: CLIENT_HOST } },
              {
                path: `/n/${world.client.site}${path === "/" ? "" : path}`,
                headers: {} as Record<string, string>,
              },
            ]);
      for (const { path, headers } of answers) {
        const answer = await world.get(path, headers);
        expect(answer.status, path).toBe(200);
        expect(answer.text.includes(story.slug) || answer.text.includes(story.id), path).toBe(true);
        const tags = (answer.headers.get("cache-tag") ?? "").split(",");
        expect(
          tags.some((tag) => purged.has(tag)),
          `${path}: ${tags.join(",")}`,
        ).toBe(true);
      }
    }
  });
});

describe("invalidation", () => {
  test(
    "an unpublish drops the story from the site's sitemap and feeds at the next request; another organization's stay the same",
    async () => {
      const story = world.client.published.find((s) => s.type !== "in_the_news")!;
      const topic = story.topics[0]!;
      const pagePaths = ["/", `/topics/${topic}`];
      for (const path of pagePaths) {
        expect((await onClientHost(path)).text, path).toContain(`/${story.slug}"`);
      }
      expect((await onClientHost(`/${story.slug}`)).status).toBe(200);
      await world.get("/newsroom");
      expect((await onClientHost("/sitemap.xml")).text).toContain(`/${story.slug}<`);
      expect((await onClientHost("/feed.xml")).text).toContain(story.id);
      expect((await onClientHost("/feed.json")).text).toContain(story.id);
      expect((await world.get(`/n/${world.client.site}/sitemap.xml`)).text).toContain(
        `/${story.slug}<`,
      );
      const houseSitemap = await world.get("/sitemap.xml");
      await storyActionOnBus(world.database.db, world.runtime.bus, story.id, "unpublish");
      await eventually(async () => !(await onClientHost("/feed.json")).text.includes(story.id), {
        message: "the client's feed to drop the unpublished story",
      });
      expect((await onClientHost(`/${story.slug}`)).status).toBe(404);
      for (const path of pagePaths) {
        expect((await onClientHost(path)).text, path).not.toContain(`/${story.slug}"`);
      }
      expect((await onClientHost("/sitemap.xml")).text).not.toContain(`/${story.slug}<`);
      expect((await onClientHost("/feed.xml")).text).not.toContain(story.id);
      expect((await onClientHost("/feed.json")).text).not.toContain(story.id);
      expect((await world.get(`/n/${world.client.site}/sitemap.xml`)).text).not.toContain(
        `/${story.slug}<`,
      );
      // The house's sitemap did not change: its ETag is the same.
      expect((await world.get("/sitemap.xml")).headers.get("etag")).toBe(
        houseSitemap.headers.get("etag"),
      );
    },
    SLOW,
  );
});

describe("site changes", () => {
  test("a site that goes live is no longer disallowed or noindex at the next request", async () => {
    const site = world.dormant.site;
    expect((await world.get("/robots.txt")).text).toContain(`Disallow: /n/${site}/`);
    expect((await world.get(`/n/${site}/feed.xml`)).headers.get("x-robots-tag")).toBe("noindex");
    await world.database.db.update(sites).set({ live: true }).where(eq(sites.slug, site));
    await announceSiteChange(world.runtime.bus, world.dormant.id, site);
    // Waits for the disallow line itself: the live site's sitemap line names its path too.
    await eventually(
      async () => !(await world.get("/robots.txt")).text.includes(`Disallow: /n/${site}/`),
      { message: "robots.txt to stop disallowing the site that went live" },
    );
    const robots = (await world.get("/robots.txt")).text;
    expect(robots).not.toContain(`Disallow: /n/${site}/`);
    expect(robots).toContain(`Sitemap: ${NEWSROOM_HOST}/${site}/sitemap.xml`);
    expect((await world.get(`/n/${site}/feed.xml`)).headers.get("x-robots-tag")).toBe(null);
  });
});
