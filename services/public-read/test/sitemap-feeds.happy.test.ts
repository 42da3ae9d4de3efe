import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { JsonFeed } from "@newsroom/shared/feed-formats/model";
import { Value } from "@sinclair/typebox/value";
import Parser from "rss-parser";
import { serviceRobots, siteRobots } from "../src/pages/robots.ts";
import { siteFeed } from "../src/pages/site-feeds.ts";
import { sitemapDocument } from "../src/pages/sitemap-xml.ts";
import { siteBySlug } from "../src/sites/service.ts";
import { buildWorld, NEWSROOM_HOST, type World } from "./support/world.ts";
import { sitemapSchemaErrors } from "./support/xml-schema.ts";

const SLOW = 60_000;
let world: World;
beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

async function clientSite() {
  const site = await siteBySlug(world.database.db, NEWSROOM_HOST, world.client.site);
  if (!site) throw new Error("the client site is missing");
  const home = site.record.canonical_url;
  return { site, home, sitemapUrl: `${home}/sitemap.xml` };
}

function locsOf(xml: string): string[] {
  return [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]!);
}

describe("sitemap.xml", () => {
  test("validates against the sitemaps.org schema and lists the home page and every published story", async () => {
    const { site, home, sitemapUrl } = await clientSite();
    const doc = await sitemapDocument(world.database.db, site.newsroom, { home, sitemapUrl }, null);
    expect(await sitemapSchemaErrors(doc!.xml, "sitemap.xsd")).toEqual([]);
    const expected = world.client.published.map((story) => `${home}/${story.slug}`);
    expect(locsOf(doc!.xml).sort()).toEqual([home, ...expected].sort());
    for (const story of world.client.hidden) expect(doc!.xml).not.toContain(`/${story.slug}<`);
    expect(doc!.lastModified).toBeInstanceOf(Date);
  });

  test("a newsroom with nothing to show still gives a valid file: its home page", async () => {
    const dormant = await siteBySlug(world.database.db, NEWSROOM_HOST, world.dormant.site);
    const home = dormant!.record.canonical_url;
    const doc = await sitemapDocument(
      world.database.db,
      dormant!.newsroom,
      { home, sitemapUrl: `${home}/sitemap.xml` },
      null,
    );
    expect(await sitemapSchemaErrors(doc!.xml, "sitemap.xsd")).toEqual([]);
    expect(locsOf(doc!.xml)).toEqual([home]);
  });

  test("past the per-file limit it is a valid sitemap index whose parts list every address once", async () => {
    const { site, home, sitemapUrl } = await clientSite();
    const limit = 3;
    const place = { home, sitemapUrl };
    const index = await sitemapDocument(world.database.db, site.newsroom, place, null, limit);
    expect(await sitemapSchemaErrors(index!.xml, "siteindex.xsd")).toEqual([]);
    const total = world.client.published.length + 1;
    const parts = Math.ceil(total / limit);
    expect(locsOf(index!.xml)).toEqual(
      Array.from({ length: parts }, (_, i) => `${home}/sitemap-${i + 1}.xml`),
    );
    const listed: string[] = [];
    for (let part = 1; part <= parts; part++) {
      const doc = await sitemapDocument(world.database.db, site.newsroom, place, part, limit);
      expect(await sitemapSchemaErrors(doc!.xml, "sitemap.xsd")).toEqual([]);
      expect(locsOf(doc!.xml).length).toBeLessThanOrEqual(limit);
      listed.push(...locsOf(doc!.xml));
    }
    const expected = [home, ...world.client.published.map((story) => `${home}/${story.slug}`)];
    expect(listed.sort()).toEqual(expected.sort());
    expect(await sitemapDocument(world.database.db, site.newsroom, place, parts + 1, limit)).toBe(
      null,
    );
    expect(await sitemapDocument(world.database.db, site.newsroom, place, 0, limit)).toBe(null);
  });

  test("an unsplit sitemap has no parts", async () => {
    const { site, home, sitemapUrl } = await clientSite();
    expect(await sitemapDocument(world.database.db, site.newsroom, { home, sitemapUrl }, 1)).toBe(
      null,
    );
  });
});

describe("site feeds", () => {
  test("RSS 2.0 parses with a feed parser and lists the published stories", async () => {
    const { site, home } = await clientSite();
    const place = { title: site.record.name, home };
    const feed = await siteFeed(world.database.db, site.newsroom, place, "rss");
    expect(feed.contentType).toBe("application/rss+xml; charset=utf-8");
    const parsed = await new Parser().parseString(feed.body);
    expect(parsed.title).toBe("Client News");
    expect(parsed.link).toBe(home);
    const ids = world.client.published.map((story) => story.id).sort();
    expect(parsed.items.map((item) => item.guid).sort()).toEqual(ids);
    for (const story of world.client.hidden) expect(feed.body).not.toContain(story.id);
    for (const url of world.forbiddenAssetUrls) expect(feed.body).not.toContain(url);
  });

  test("JSON Feed 1.1 matches the format's schema with the same stories", async () => {
    const { site, home } = await clientSite();
    const place = { title: site.record.name, home };
    const feed = await siteFeed(world.database.db, site.newsroom, place, "json");
    expect(feed.contentType).toBe("application/feed+json; charset=utf-8");
    const body = JSON.parse(feed.body);
    expect([...Value.Errors(JsonFeed, body)]).toEqual([]);
    expect(body.feed_url).toBe(`${home}/feed.json`);
    expect(body.home_page_url).toBe(home);
    const ids = world.client.published.map((story) => story.id).sort();
    expect(body.items.map((item: { id: string }) => item.id).sort()).toEqual(ids);
    for (const url of world.forbiddenAssetUrls) expect(feed.body).not.toContain(url);
  });

  test("a newsroom that is not running has empty feeds", async () => {
    const dormant = await siteBySlug(world.database.db, NEWSROOM_HOST, world.dormant.site);
    const home = dormant!.record.canonical_url;
    const feed = await siteFeed(world.database.db, dormant!.newsroom, { title: "D", home }, "json");
    expect(JSON.parse(feed.body).items).toEqual([]);
    expect(feed.lastModified).toBe(null);
  });
});

describe("robots.txt", () => {
  test("a live site names its sitemap; a site that is not live is disallowed whole", () => {
    const sitemapUrl = "https://news.client.example/sitemap.xml";
    expect(siteRobots({ live: true, sitemapUrl })).toBe(
      `User-agent: *\nAllow: /\n\nSitemap: ${sitemapUrl}\n`,
    );
    expect(siteRobots({ live: false, sitemapUrl })).toBe("User-agent: *\nDisallow: /\n");
  });

  test("the service's own host disallows each hosted site that is not live, by its path", () => {
    const text = serviceRobots({ sitemapUrl: "https://example.test/sitemap.xml" }, [
      {
        path: "/n/live-news",
        live: true,
        sitemapUrl: "https://example.test/n/live-news/sitemap.xml",
      },
      {
        path: "/n/hidden-news",
        live: false,
        sitemapUrl: "https://example.test/n/hidden-news/sitemap.xml",
      },
    ]);
    expect(text).toContain("Disallow: /n/hidden-news/\nDisallow: /n/hidden-news$\n");
    expect(text).not.toContain("Disallow: /n/live-news");
    expect(text).toContain("Sitemap: https://example.test/sitemap.xml\n");
    expect(text).toContain("Sitemap: https://example.test/n/live-news/sitemap.xml\n");
    expect(text).not.toContain("hidden-news/sitemap.xml");
  });
});
