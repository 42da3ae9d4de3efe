import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hostnames, sites } from "@newsroom/shared/db/schema";
import { syntheticStories } from "@newsroom/shared/demo/synthetic-stories";
import { JSON_FEED_VERSION, JsonFeed } from "@newsroom/shared/feed-formats/model";
import { newId } from "@newsroom/shared/ids";
import {
  applyStoryAction,
  insertOrganization,
  insertPublishedStory,
  insertStories,
} from "@newsroom/shared/testing/builders";
import { parseFeed } from "@rowanmanning/feed-parser";
import Parser from "rss-parser";
import {
  AWKWARD_TITLE,
  clientApiFixture,
  expectShape,
  type Fixture,
  makeKey,
  PUBLIC_BASE_URL,
  random,
} from "./support/fixture.ts";

let f: Fixture;
beforeAll(async () => {
  f = await clientApiFixture();
});
afterAll(async () => {
  await f.close();
});

type Item = Record<string, unknown> & {
  id: string;
  title?: string;
  content_html: string;
  content_text: string;
};

async function jsonFeed(
  key: string,
  query = "",
): Promise<{ version: string; items: Item[]; feed_url?: string } & Record<string, unknown>> {
  const response = await f.get(`/v1/feed.json${query}`, query ? {} : { key });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/feed+json; charset=utf-8");
  expect(response.headers.get("cache-control")).toBe("private, no-cache");
  const feed = JSON.parse(await response.text());
  expectShape(JsonFeed, feed);
  // JSON Feed 1.1 rules beyond the field types.
  expect(feed.version).toBe(JSON_FEED_VERSION);
  for (const item of feed.items) {
    expect(typeof item.content_html === "string" || typeof item.content_text === "string").toBe(
      true,
    );
    for (const value of Object.values(item)) expect(value).not.toBeNull();
  }
  expect(new Set(feed.items.map((i: Item) => i.id)).size).toBe(feed.items.length);
  return feed;
}

async function rssFeed(key: string, query = "") {
  const response = await f.get(`/v1/feed.xml${query}`, query ? {} : { key });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
  expect(response.headers.get("cache-control")).toBe("private, no-cache");
  const xml = await response.text();
  const parser = new Parser({ customFields: { item: [["content:encoded", "contentEncoded"]] } });
  const feed = await parser.parseString(xml);
  return {
    xml,
    feed: feed as typeof feed & { items: (Parser.Item & { contentEncoded?: string })[] },
  };
}

describe("GET /v1/feed.json", () => {
  test("JSON Feed 1.1 of the published stories, titles exactly as written", async () => {
    const feed = await jsonFeed(f.a.key);
    expect(feed.title).toContain("Acme");
    expect(feed.feed_url).toBe(`${PUBLIC_BASE_URL}/v1/feed.json`);
    expect(new Set(feed.items.map((i) => i.id))).toEqual(new Set(f.a.published));
    const awkward = feed.items.find((i) => i.id === f.a.decided)!;
    expect(awkward.title).toBe(AWKWARD_TITLE);
    expect(awkward.tags).toEqual(["culture", "policy"]);
    expect(awkward.content_text).toContain(
      'Paragraph with "quotes", <script>alert(1)</script> and é.',
    );
    expect(awkward.content_text).toContain("- first <item>");
    expect(awkward.content_html).toContain("<h2>Heading &lt;one&gt; &amp; more</h2>");
    expect(awkward.content_html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(awkward.content_html).not.toContain("<script>");
    expect(awkward.content_html).toContain(
      "<ul><li>first &lt;item&gt;</li><li>second &amp; last</li></ul>",
    );
    expect(awkward.content_html).not.toContain("cdn.example.com");
    const coverage = feed.items.find((i) => i.id !== f.a.decided)!;
    expect(coverage.external_url).toBe("https://press.example.com/story");
    // No newsroom page without a site: the coverage is the item's address in both formats.
    expect(coverage.url).toBe("https://press.example.com/story");
    expect(coverage.content_text).toBe("A newspaper wrote about us.");
    expect(coverage.content_html).toBe("<p>A newspaper wrote about us.</p>");
  });

  test("empty while the newsroom is not running, answered normally", async () => {
    const feed = await jsonFeed(f.idle.key);
    expect(feed.items).toEqual([]);
  });

  test("with ?key= the feed never repeats the key", async () => {
    const feed = await jsonFeed("", `?key=${f.keys.feedOnly}`);
    expect(JSON.stringify(feed)).not.toContain(f.keys.feedOnly);
    expect(feed.feed_url).toBe(`${PUBLIC_BASE_URL}/v1/feed.json`);
  });
});

describe("GET /v1/feed.xml", () => {
  test("RSS 2.0 that a feed parser reads, with content:encoded bodies", async () => {
    const { xml, feed } = await rssFeed(f.a.key);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml).toContain('<rss version="2.0"');
    expect(feed.title).toContain("Acme");
    expect(feed.items).toHaveLength(2);
    expect(new Set(feed.items.map((i) => i.guid))).toEqual(new Set(f.a.published));
    const awkward = feed.items.find((i) => i.guid === f.a.decided)!;
    expect(awkward.title).toBe(AWKWARD_TITLE);
    expect(awkward.contentEncoded).toContain("<h2>Heading &lt;one&gt; &amp; more</h2>");
    expect(awkward.contentEncoded).toContain("&lt;script&gt;");
    expect(awkward.categories).toEqual(["culture", "policy"]);
    expect(Number.isNaN(Date.parse(awkward.pubDate!))).toBe(false);
    const coverage = feed.items.find((i) => i.guid !== f.a.decided)!;
    expect(coverage.link).toBe("https://press.example.com/story");
  });

  test("the same stories as the JSON feed, in the same order", async () => {
    const json = await jsonFeed(f.b.key);
    const { feed } = await rssFeed(f.b.key);
    expect(feed.items.map((i) => i.guid)).toEqual(json.items.map((i) => i.id));
  });

  test("empty while the newsroom is not running", async () => {
    const { feed } = await rssFeed(f.idle.key);
    expect(feed.items).toEqual([]);
  });

  test("control characters in a title are dropped, the XML stays well-formed", async () => {
    const org = await insertOrganization(f.db, {
      slug: `ctl-${random()}`,
      name: "Ctl \u0001 & <Co>",
      newsroomRunning: true,
    });
    const [id] = await insertStories(
      f.db,
      org.id,
      [{ ...syntheticStories(1, 9)[0]!, title: "Bell\u0007 and\u001F lone" }],
      () => "published",
    );
    const key = (await makeKey(f.db, org.id, ["feed:read"])).secret;
    const { feed } = await rssFeed(key);
    expect(feed.title).toBe("Ctl  & <Co>");
    expect(feed.items[0]!.guid).toBe(id);
    expect(feed.items[0]!.title).toBe("Bell and lone");
  });
});

describe("feed size", () => {
  test("the 50 most recent published stories, newest first", async () => {
    const org = await insertOrganization(f.db, {
      slug: `many-${random()}`,
      name: "Many",
      newsroomRunning: true,
    });
    const list = syntheticStories(64, 5, "m-");
    const ids = await insertStories(f.db, org.id, list, (i) => (i < 60 ? "published" : "draft"));
    const key = (await makeKey(f.db, org.id, ["feed:read"])).secret;
    const feed = await jsonFeed(key);
    expect(feed.items).toHaveLength(50);
    // insertStories dates story i further back as i grows: the first 50 are the newest.
    expect(feed.items.map((i) => i.id)).toEqual(ids.slice(0, 50));
    const published = feed.items.map((i) => Date.parse(i.date_published as string));
    expect(published).toEqual([...published].sort((x, y) => y - x));
    const { feed: rss } = await rssFeed(key);
    expect(rss.items.map((i) => i.guid)).toEqual(ids.slice(0, 50));
    // An unpublished story leaves both feeds on the next request.
    await applyStoryAction(f.db, ids[0]!, "unpublish");
    expect((await jsonFeed(key)).items.map((i) => i.id)).toEqual(ids.slice(1, 51));
  });
});

describe("links", () => {
  test("items link to the hosted newsroom, then to the client's hostname once active", async () => {
    const org = await insertOrganization(f.db, {
      slug: `site-${random()}`,
      name: "Sited",
      newsroomRunning: true,
    });
    const [id] = await insertStories(
      f.db,
      org.id,
      syntheticStories(1, 11, "s-"),
      () => "published",
    );
    const key = (await makeKey(f.db, org.id, ["feed:read"])).secret;
    const siteSlug = `sited-${random()}`;
    const siteId = newId();
    await f.db.insert(sites).values({
      id: siteId,
      organizationId: org.id,
      slug: siteSlug,
      name: "Sited",
      publisher: "Sited",
      enabled: true,
    });
    const hosted = await jsonFeed(key);
    expect(hosted.home_page_url).toBe(`https://news.example.com/${siteSlug}`);
    const slug = syntheticStories(1, 11, "s-")[0]!.slug;
    expect(hosted.items[0]).toMatchObject({
      id,
      url: `https://news.example.com/${siteSlug}/${slug}`,
    });
    await f.db.insert(hostnames).values({
      id: newId(),
      organizationId: org.id,
      siteId,
      hostname: `news.${siteSlug}.example`,
      status: "active",
      activatedAt: new Date(),
    });
    const own = await jsonFeed(key);
    expect(own.home_page_url).toBe(`https://news.${siteSlug}.example`);
    const { feed } = await rssFeed(key);
    expect(feed.link).toBe(`https://news.${siteSlug}.example`);
    expect(feed.items[0]!.link).toBe(`https://news.${siteSlug}.example/${slug}`);
  });

  test("the feed's own address is PUBLIC_BASE_URL's, whatever Host or X-Forwarded-Host say", async () => {
    const headers: Record<string, string>[] = [
      {},
      { host: "evil.example" },
      { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      { host: "other.example:8443", "x-forwarded-host": "api.example.org:8443" },
      { "x-forwarded-host": "evil.example/path", "x-forwarded-proto": "javascript" },
    ];
    for (const [format, self] of [
      ["json", /"feed_url":"([^"]+)"/],
      ["xml", /<atom:link href="([^"]+)" rel="self"/],
    ] as const) {
      const bodies = new Set<string>();
      for (const extra of headers) {
        const response = await f.get(`/v1/feed.${format}`, { key: f.a.key, headers: extra });
        expect(response.status).toBe(200);
        const body = await response.text();
        expect(body).not.toContain("evil.example");
        expect(body).not.toContain("api.example.org");
        expect(self.exec(body)?.[1]).toBe(`${PUBLIC_BASE_URL}/v1/feed.${format}`);
        bodies.add(body);
      }
      expect(bodies.size).toBe(1);
    }
  });
});

describe("conditional requests", () => {
  for (const path of ["/v1/feed.json", "/v1/feed.xml"]) {
    test(`${path}: a matching If-None-Match gets 304 until the feed changes`, async () => {
      const first = await f.get(path, { key: f.a.key });
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      expect(first.headers.get("vary")).toBe("Authorization");

      const again = await f.get(path, { key: f.a.key, headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe("private, no-cache");
      const weak = await f.get(path, {
        key: f.keys.feedOnly,
        headers: { "if-none-match": `"other", W/${etag}` },
      });
      expect(weak.status).toBe(304);
      const byQuery = await f.get(`${path}?key=${f.keys.feedOnly}`, {
        headers: { "if-none-match": etag },
      });
      expect(byQuery.status).toBe(304);

      const stale = await f.get(path, { key: f.a.key, headers: { "if-none-match": '"stale"' } });
      expect(stale.status).toBe(200);
      expect(stale.headers.get("etag")).toBe(etag);
    });
  }

  test("a story published since gives a new tag and the whole feed", async () => {
    const before = await f.get("/v1/feed.json", { key: f.a.key });
    const etag = before.headers.get("etag")!;
    const [inReview] = f.a.inReview;
    for (const action of ["approve", "publish"] as const) {
      await applyStoryAction(f.db, inReview!, action);
    }
    const after = await f.get("/v1/feed.json", {
      key: f.a.key,
      headers: { "if-none-match": etag },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect(await after.text()).toContain(inReview!);
  });
});

describe("what feed readers check", () => {
  /** An organization with a hosted site and one published `in_the_news` item. */
  async function sitedCoverage() {
    const org = await insertOrganization(f.db, {
      slug: `cover-${random()}`,
      name: "Covered",
      newsroomRunning: true,
    });
    const siteSlug = `covered-${random()}`;
    await f.db.insert(sites).values({
      id: newId(),
      organizationId: org.id,
      slug: siteSlug,
      name: "Covered",
      publisher: "Covered",
      enabled: true,
    });
    await insertPublishedStory(f.db, org.id, {
      type: "in_the_news",
      slug: "coverage",
      title: "Coverage",
      summary: "They wrote about us.",
      externalUrl: "https://press.example.com/coverage",
    });
    const key = (await makeKey(f.db, org.id, ["feed:read"])).secret;
    return { key, page: `https://news.example.com/${siteSlug}/coverage` };
  }

  test("RSS <link> and JSON Feed url agree on an in_the_news item: its newsroom page", async () => {
    const { key, page } = await sitedCoverage();
    const json = await jsonFeed(key);
    expect(json.items[0]).toMatchObject({
      url: page,
      external_url: "https://press.example.com/coverage",
    });
    const xml = await (await f.get("/v1/feed.xml", { key })).text();
    const parsed = parseFeed(xml);
    expect(parsed.items[0]!.url).toBe(page);
    expect((await rssFeed(key)).feed.items[0]!.link).toBe(page);
  });

  test("both formats name the language, as two independent parsers read it", async () => {
    const { key } = await sitedCoverage();
    const xml = await (await f.get("/v1/feed.xml", { key })).text();
    expect(parseFeed(xml).language).toBe("en");
    expect(xml).toContain("<language>en</language>");
    expect((await jsonFeed(key)).language).toBe("en");
  });

  test("Last-Modified, and 304 to an If-Modified-Since no older than it", async () => {
    for (const format of ["json", "xml"]) {
      const first = await f.get(`/v1/feed.${format}`, { key: f.a.key });
      const lastModified = first.headers.get("last-modified");
      expect(lastModified).toMatch(
        /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
      );
      const since = async (date: string) =>
        f.get(`/v1/feed.${format}`, { key: f.a.key, headers: { "if-modified-since": date } });
      const same = await since(lastModified!);
      expect(same.status).toBe(304);
      expect(await same.text()).toBe("");
      expect(same.headers.get("last-modified")).toBe(lastModified);
      expect(same.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(same.headers.get("vary")).toBe("Authorization");
      const older = new Date(Date.parse(lastModified!) - 1000).toUTCString();
      expect((await since(older)).status).toBe(200);
      // If-None-Match decides when both are sent: a tag that does not match gets the feed.
      const both = await f.get(`/v1/feed.${format}`, {
        key: f.a.key,
        headers: { "if-modified-since": lastModified!, "if-none-match": '"other"' },
      });
      expect(both.status).toBe(200);
    }
  });

  test("a story taken down moves Last-Modified, though the feed only lost an item", async () => {
    const org = await insertOrganization(f.db, {
      slug: `down-${random()}`,
      name: "Down",
      newsroomRunning: true,
    });
    const story = await insertPublishedStory(f.db, org.id, {
      type: "insight",
      slug: "soon-gone",
      title: "Soon gone",
      summary: null,
    });
    const downKey = (await makeKey(f.db, org.id, ["feed:read"])).secret;
    const listed = await f.get("/v1/feed.json", { key: downKey });
    const shownAt = listed.headers.get("last-modified")!;
    await Bun.sleep(1100);
    await applyStoryAction(f.db, story.id, "unpublish");
    const after = await f.get("/v1/feed.json", {
      key: downKey,
      headers: { "if-modified-since": shownAt },
    });
    expect(after.status).toBe(200);
    expect(Date.parse(after.headers.get("last-modified")!)).toBeGreaterThan(Date.parse(shownAt));
  });
});
