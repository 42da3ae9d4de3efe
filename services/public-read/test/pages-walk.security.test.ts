import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { STORY_TYPES } from "@newsroom/shared/db/schema";
import { type Answer, buildWorld, type OrgFixture, type World } from "./support/world.ts";

/**
 * The JSON routes' security walk, repeated on the pages and the documents beside them: every
 * story of every status in every organization, asked for on the house newsroom, on each hosted
 * site by its path and by its client hostname. Only a published story of a running newsroom on
 * an enabled site shows, only on its own newsroom; nothing unpublished, uncleared or foreign
 * appears anywhere in any answer's text.
 */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Fixture slugs and topics all start with one of these prefixes. */
const FIXTURE_TOKEN = /(?<![A-Za-z0-9_-])[hcdz]-(?:[a-z0-9]+-)*[a-z0-9]+/g;

const SLOW = 120_000;

let world: World;
beforeAll(async () => {
  world = await buildWorld();
}, 60_000);
afterAll(() => world.close());

interface Place {
  name: string;
  /** The newsroom's home path on its host. */
  base: string;
  headers: Record<string, string>;
  /** Whose content it may show, or null for a newsroom that shows none. */
  org: OrgFixture | null;
  /** Whether the newsroom is served at all. */
  served: boolean;
}

function places(): Place[] {
  const none: Record<string, string> = {};
  return [
    { name: "house", base: "/newsroom", headers: none, org: world.house, served: true },
    {
      name: "client by path",
      base: `/n/${world.client.site}`,
      headers: none,
      org: world.client,
      served: true,
    },
    {
      name: "client by hostname",
      base: "",
      headers: { host: world.client.activeHost },
      org: world.client,
      served: true,
    },
    {
      name: "dormant by path",
      base: `/n/${world.dormant.site}`,
      headers: none,
      org: null,
      served: true,
    },
    {
      name: "disabled by path",
      base: `/n/${world.disabled.site}`,
      headers: none,
      org: null,
      served: false,
    },
    {
      name: "disabled by hostname",
      base: "",
      headers: { host: world.disabled.activeHost },
      org: null,
      served: false,
    },
    {
      name: "pending hostname",
      base: "",
      headers: { host: world.client.pendingHost },
      org: null,
      served: false,
    },
  ];
}

const allOrgs = () => [world.house, world.client, world.disabled, world.dormant];

/** Asserts that nothing in the answer's text is unpublished, uncleared or another's. */
function assertClean(answer: Answer, org: OrgFixture | null, where: string): void {
  expect(answer.status, where).not.toBe(500);
  const ids = new Set((org?.published ?? []).map((story) => story.id));
  const tokens = new Set<string>();
  for (const story of org?.published ?? []) {
    tokens.add(story.slug);
    for (const topic of story.topics) tokens.add(topic);
  }
  const text = answer.text;
  for (const value of [...world.forbiddenAssetUrls, ...world.foreignPeople]) {
    expect(text.includes(value), `${where}: ${value}`).toBe(false);
  }
  expect(text.includes("/raw.jpg") || text.includes("never shown"), where).toBe(false);
  for (const id of text.match(UUID) ?? []) {
    expect(ids.has(id.toLowerCase()), `${where}: id ${id}`).toBe(true);
  }
  // Only the fixtures' own tokens count (a stylesheet's `z-index` is no story).
  const fixtureTokens = new Set(
    allOrgs().flatMap((o) => o.stories.flatMap((story) => [story.slug, ...story.topics])),
  );
  for (const token of text.match(FIXTURE_TOKEN) ?? []) {
    if (fixtureTokens.has(token)) expect(tokens.has(token), `${where}: ${token}`).toBe(true);
  }
}

describe("pages and documents show only published, public content", () => {
  test(
    "an item page answers only for a published story of the newsroom's own organization",
    async () => {
      for (const place of places()) {
        for (const org of allOrgs()) {
          for (const story of org.stories) {
            const where = `${place.name}: ${org.slug}/${story.slug} (${story.status})`;
            const answer = await world.get(`${place.base}/${story.slug}`, place.headers);
            const visible = place.org === org && story.status === "published";
            expect(answer.status, where).toBe(visible ? 200 : 404);
            assertClean(answer, visible ? place.org : null, where);
          }
        }
      }
    },
    SLOW,
  );

  test(
    "index pages (every type), topic pages, sitemaps and feeds list only published stories",
    async () => {
      for (const place of places()) {
        const home = place.base || "/";
        const paths = [
          home,
          ...STORY_TYPES.map((type) => `${home}?type=${type}`),
          ...allOrgs().flatMap((org) =>
            [...new Set(org.stories.flatMap((story) => story.topics))].map(
              (topic) => `${place.base}/topics/${topic}`,
            ),
          ),
          `${place.base}/feed.xml`,
          `${place.base}/feed.json`,
        ];
        if (place.base !== "/newsroom") paths.push(`${place.base}/sitemap.xml`);
        for (const path of paths) {
          const answer = await world.get(path, place.headers);
          const where = `${place.name}: ${path}`;
          if (!place.served) expect(answer.status, where).toBe(404);
          assertClean(answer, place.org, where);
          if (answer.status === 200 && place.org) {
            for (const story of place.org.hidden) {
              expect(answer.text.includes(`/${story.slug}`), `${where}: ${story.slug}`).toBe(false);
            }
          }
        }
      }
      // The house sitemap is at the root of the service's host.
      assertClean(await world.get("/sitemap.xml"), world.house, "house sitemap");
      assertClean(await world.get("/robots.txt"), null, "robots.txt");
    },
    SLOW,
  );
});
