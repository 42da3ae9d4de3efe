import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { STORY_TYPES } from "@newsroom/shared/db/schema";
import {
  type Answer,
  buildWorld,
  type OrgFixture,
  stringsIn,
  type World,
  walkPages,
} from "./support/world.ts";

/**
 * Only published content of a running newsroom or an enabled site ever leaves: every route,
 * every page, checked on the whole body against a whitelist of what may appear.
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Fixture slugs and topics all start with one of these prefixes. */
const FIXTURE_TOKEN = /\b[hcdz]-[a-z0-9-]+/g;

const SLOW = 60_000;

let world: World;
let checked = 0;

beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

function allOrgs(): OrgFixture[] {
  return [world.house, world.client, world.disabled, world.dormant];
}

function topicSlugsOf(org: OrgFixture): string[] {
  return [...new Set(org.stories.flatMap((s) => s.topics))];
}

/** Which identifiers and fixture tokens an answer about `org` may contain. */
function allowedFor(org: OrgFixture | null) {
  const ids = new Set((org?.published ?? []).map((s) => s.id));
  const tokens = new Set<string>();
  for (const story of org?.published ?? []) {
    tokens.add(story.slug);
    for (const topic of story.topics) tokens.add(topic);
  }
  return { ids, tokens };
}

/** Asserts that nothing in the whole body is unpublished, uncleared or foreign. */
function assertClean(answer: Answer, org: OrgFixture | null, where: string): void {
  expect(answer.status, where).not.toBe(500);
  const { ids, tokens } = allowedFor(org);
  const forbiddenExact = new Set([...world.forbiddenAssetUrls, ...world.foreignPeople]);
  // The request id is random text: everything else is checked.
  const body =
    answer.body?.error !== undefined
      ? { error: { ...answer.body.error, request_id: undefined } }
      : answer.body;
  for (const value of stringsIn(body)) {
    expect(forbiddenExact.has(value), `${where}: ${value}`).toBe(false);
    expect(value.includes("/raw.jpg") || value.includes("never shown"), `${where}: ${value}`).toBe(
      false,
    );
    for (const id of value.match(UUID) ?? []) {
      expect(ids.has(id.toLowerCase()), `${where}: id ${id} in ${value}`).toBe(true);
    }
    for (const token of value.match(FIXTURE_TOKEN) ?? []) {
      expect(tokens.has(token), `${where}: ${token} in ${value}`).toBe(true);
    }
  }
  checked += 1;
}

/** Items listed across every page, in order. */
function idsOfPages(pages: Answer[]): string[] {
  return pages.flatMap((page) => page.body.items.map((item: { id: string }) => item.id));
}

function sortedIds(stories: { id: string }[]): string[] {
  return stories.map((s) => s.id).sort();
}

describe("house newsroom", () => {
  test(
    "the index lists exactly the house's published items, on every filter",
    async () => {
      const pages = await walkPages(world.get, "/v1/public/newsroom");
      for (const page of pages) assertClean(page, world.house, "index");
      expect(idsOfPages(pages).sort()).toEqual(sortedIds(world.house.published));
      const first = pages[0]!.body;
      expect(first.types).toEqual([...STORY_TYPES]);
      expect(first.topics.map((t: { slug: string }) => t.slug).sort()).toEqual(
        topicSlugsOf({ ...world.house, stories: world.house.published }).sort(),
      );
      for (const featured of first.featured) {
        expect(world.house.published.find((s) => s.id === featured.id)?.featured).toBe(true);
      }

      for (const type of STORY_TYPES) {
        const typed = await walkPages(world.get, `/v1/public/newsroom?type=${type}`);
        for (const page of typed) assertClean(page, world.house, `index type=${type}`);
        expect(idsOfPages(typed)).toEqual(
          world.house.published.filter((s) => s.type === type).map((s) => s.id),
        );
      }
      for (const org of allOrgs()) {
        for (const topic of topicSlugsOf(org)) {
          const filtered = await walkPages(world.get, `/v1/public/newsroom?topic=${topic}`);
          for (const page of filtered) assertClean(page, world.house, `index topic=${topic}`);
          expect(idsOfPages(filtered).sort()).toEqual(
            sortedIds(
              org === world.house
                ? world.house.published.filter((s) => s.topics.includes(topic))
                : [],
            ),
          );
        }
      }
    },
    SLOW,
  );

  test(
    "an item answers only when it is a published house item",
    async () => {
      for (const org of allOrgs()) {
        for (const story of org.stories) {
          const answer = await world.get(`/v1/public/newsroom/${story.slug}`);
          const visible = org === world.house && story.status === "published";
          expect(answer.status, `${org.slug}/${story.slug}`).toBe(visible ? 200 : 404);
          if (visible) {
            assertClean(answer, world.house, `item ${story.slug}`);
            expect(answer.body.id).toBe(story.id);
          } else {
            expect(answer.body.error.code).toBe("not_found");
            assertClean(answer, null, `missing item ${story.slug}`);
          }
        }
      }
    },
    SLOW,
  );

  test(
    "a topic answers only when it has published house items",
    async () => {
      const houseTopics = new Set(world.house.published.flatMap((s) => s.topics));
      for (const org of allOrgs()) {
        for (const topic of topicSlugsOf(org)) {
          const pages = await walkPages(world.get, `/v1/public/topics/${topic}`);
          const visible = org === world.house && houseTopics.has(topic);
          expect(pages[0]!.status, topic).toBe(visible ? 200 : 404);
          for (const page of pages)
            assertClean(page, visible ? world.house : null, `topic ${topic}`);
          if (visible) {
            expect(idsOfPages(pages).sort()).toEqual(
              sortedIds(world.house.published.filter((s) => s.topics.includes(topic))),
            );
          }
        }
      }
    },
    SLOW,
  );

  test(
    "search documents and the sitemap hold exactly the published house items",
    async () => {
      const search = await world.get("/v1/public/search/newsroom");
      expect(search.status).toBe(200);
      assertClean(search, world.house, "search");
      expect(search.body.documents.map((d: { id: string }) => d.id).sort()).toEqual(
        sortedIds(world.house.published),
      );

      const sitemap = await world.get("/v1/public/sitemap/newsroom");
      expect(sitemap.status).toBe(200);
      assertClean(sitemap, world.house, "sitemap");
      expect(
        sitemap.body.entries.map((e: { loc: string }) => e.loc.split("/").at(-1)).sort(),
      ).toEqual(world.house.published.map((s) => s.slug).sort());
    },
    SLOW,
  );
});

describe("hosted newsrooms", () => {
  const siteOf = () => [
    { site: world.client.site, org: world.client, record: true, content: true },
    { site: world.disabled.site, org: world.disabled, record: false, content: false },
    { site: world.dormant.site, org: world.dormant, record: true, content: false },
    { site: "no-such-site", org: null, record: false, content: false },
  ];

  test(
    "site records: only enabled sites, only cleared logos",
    async () => {
      for (const { site, record } of siteOf()) {
        const answer = await world.get(`/v1/public/sites/${site}`);
        expect(answer.status, site).toBe(record ? 200 : 404);
        assertClean(answer, null, `site ${site}`);
      }
      const dormant = await world.get(`/v1/public/sites/${world.dormant.site}`);
      expect(dormant.body.logo).toBeNull();
    },
    SLOW,
  );

  test(
    "site newsrooms list only their own organization's published items",
    async () => {
      for (const { site, org, record, content } of siteOf()) {
        const pages = await walkPages(world.get, `/v1/public/sites/${site}/newsroom`);
        expect(pages[0]!.status, site).toBe(record ? 200 : 404);
        for (const page of pages) assertClean(page, content ? org : null, `site index ${site}`);
        if (record) {
          expect(idsOfPages(pages).sort()).toEqual(content ? sortedIds(org!.published) : []);
        }
        for (const type of STORY_TYPES) {
          const typed = await walkPages(
            world.get,
            `/v1/public/sites/${site}/newsroom?type=${type}`,
          );
          for (const page of typed) assertClean(page, content ? org : null, `${site} type=${type}`);
        }
      }
    },
    SLOW,
  );

  test(
    "site items and topics answer only for the site's published content",
    async () => {
      for (const { site, org: siteOrg, content } of siteOf()) {
        for (const org of allOrgs()) {
          for (const story of org.stories) {
            const answer = await world.get(`/v1/public/sites/${site}/newsroom/${story.slug}`);
            const visible = content && org === siteOrg && story.status === "published";
            expect(answer.status, `${site}/${story.slug}`).toBe(visible ? 200 : 404);
            assertClean(answer, visible ? org : null, `${site} item ${story.slug}`);
          }
          for (const topic of topicSlugsOf(org)) {
            const pages = await walkPages(world.get, `/v1/public/sites/${site}/topics/${topic}`);
            const visible =
              content && org === siteOrg && org.published.some((s) => s.topics.includes(topic));
            expect(pages[0]!.status, `${site} topic ${topic}`).toBe(visible ? 200 : 404);
            for (const page of pages) {
              assertClean(page, visible ? org : null, `${site} topic ${topic}`);
            }
          }
        }
      }
    },
    SLOW,
  );

  test(
    "site sitemaps hold only published items, on the canonical address",
    async () => {
      for (const { site, org, record, content } of siteOf()) {
        const answer = await world.get(`/v1/public/sites/${site}/sitemap`);
        expect(answer.status, site).toBe(record ? 200 : 404);
        assertClean(answer, content ? org : null, `sitemap ${site}`);
        if (record) {
          expect(answer.body.entries.length).toBe(content ? org!.published.length : 0);
        }
      }
    },
    SLOW,
  );

  test(
    "hostnames resolve only when active on an enabled site, in any case",
    async () => {
      const cases: [string, number][] = [
        [world.client.activeHost, 200],
        [world.client.activeHost.toUpperCase(), 200],
        ["News.Client.Example", 200],
        [world.client.pendingHost, 404],
        [world.client.pendingHost.toUpperCase(), 404],
        [world.disabled.activeHost, 404],
        ["unknown.example", 404],
      ];
      for (const [hostname, status] of cases) {
        const answer = await world.get(`/v1/public/hosts/${hostname}`);
        expect(answer.status, hostname).toBe(status);
        assertClean(answer, null, `host ${hostname}`);
        if (status === 200) expect(answer.body.site).toBe(world.client.site);
      }
    },
    SLOW,
  );

  test("the walk above really looked at many answers", () => {
    expect(checked).toBeGreaterThan(500);
  });
});
