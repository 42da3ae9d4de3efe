import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { STORY_TYPES } from "@newsroom/shared/db/schema";
import {
  buildWorld,
  NEWSROOM_HOST,
  type SeededStory,
  type World,
  walkPages,
} from "./support/world.ts";

const SLOW = 60_000;
const ORIGIN = new URL(NEWSROOM_HOST).origin;

let world: World;
beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

function published(type: string): SeededStory {
  return world.house.published.find((s) => s.type === type)!;
}

describe("newsroom index", () => {
  test("items newest first with the featured set, types and topics that have published items", async () => {
    const answer = await world.get("/v1/public/newsroom");
    expect(answer.status).toBe(200);
    const body = answer.body;
    expect(body.object).toBe("newsroom_index");
    const expected = [...world.house.published].sort((a, b) => a.ageDays! - b.ageDays!);
    expect(body.items.map((i: { id: string }) => i.id)).toEqual(expected.map((s) => s.id));
    const dates = body.items.map((i: { published_at: string }) => Date.parse(i.published_at));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect(body.has_more).toBe(false);
    expect(body.next_cursor).toBeNull();
    expect(body.types).toEqual([...STORY_TYPES]);
    expect(body.featured.map((i: { id: string }) => i.id)).toEqual(
      expected.filter((s) => s.featured).map((s) => s.id),
    );
    expect(body.topics).toContainEqual({ slug: "h-topic-all", name: "H Topic All" });
    expect(body.topics).toContainEqual({
      slug: "h-topic-press-release",
      name: "H Topic Press Release",
    });
    expect(body.topics).toHaveLength(7);

    const first = body.items[0];
    expect(Object.keys(first).sort()).toEqual(
      [
        "object",
        "id",
        "type",
        "slug",
        "title",
        "summary",
        "url",
        "external_url",
        "featured",
        "topics",
        "image",
        "published_at",
        "updated_at",
      ].sort(),
    );
    expect(first.url).toBe(`${ORIGIN}/newsroom/${first.slug}`);
    // The uncleared asset comes first in position: the card image is the cleared one.
    expect(first.image.url).toEndWith("/cleared.jpg");
  });

  test("filters type and topic combine", async () => {
    const both = await world.get("/v1/public/newsroom?type=event&topic=h-topic-all");
    expect(both.body.items.map((i: { id: string }) => i.id)).toEqual([published("event").id]);
    const none = await world.get("/v1/public/newsroom?type=event&topic=h-topic-video");
    expect(none.status).toBe(200);
    expect(none.body.items).toEqual([]);
    // Types and topics describe the whole newsroom, whatever the filter.
    expect(none.body.types).toEqual([...STORY_TYPES]);
    const unknownTopic = await world.get("/v1/public/newsroom?topic=no-such-topic");
    expect(unknownTopic.status).toBe(200);
    expect(unknownTopic.body.items).toEqual([]);
  });
});

describe("one item", () => {
  test("structured body, cleared assets only, own people, published related items", async () => {
    const story = published("insight");
    const answer = await world.get(`/v1/public/newsroom/${story.slug}`);
    expect(answer.status).toBe(200);
    const item = answer.body;
    expect(item).toMatchObject({
      object: "content_item",
      id: story.id,
      type: "insight",
      slug: story.slug,
      title: story.title,
      summary: `Summary of ${story.slug}`,
      external_url: null,
    });
    // Blocks referencing the uncleared asset (by id or URL) are dropped; the cleared one is
    // resolved to its public fields, with no internal id.
    expect(item.body).toEqual([
      { type: "heading", level: 2, text: `Heading of ${story.slug}` },
      { type: "paragraph", text: `Paragraph of ${story.slug}` },
      {
        type: "image",
        caption: `Cleared image of ${story.slug}`,
        asset: {
          url: `https://cdn.example.com/${world.house.slug}/${story.slug}/cleared.jpg`,
          alt: `alt https://cdn.example.com/${world.house.slug}/${story.slug}/cleared.jpg`,
          kind: "image",
        },
      },
    ]);
    expect(item.assets).toEqual([
      {
        url: `https://cdn.example.com/${world.house.slug}/${story.slug}/cleared.jpg`,
        alt: `alt https://cdn.example.com/${world.house.slug}/${story.slug}/cleared.jpg`,
        kind: "image",
      },
    ]);
    expect(item.people).toEqual([{ name: `Editor of ${world.house.slug}`, role: "Editor" }]);
    expect(item.topics).toEqual([
      { slug: "h-topic-all", name: "H Topic All" },
      { slug: "h-topic-insight", name: "H Topic Insight" },
    ]);
    // Its related stories are the next two in the fixture: both published.
    const index = world.house.stories.findIndex((s) => s.id === story.id);
    const related = world.house.stories.slice(index + 1, index + 3);
    expect(related.every((s) => s.status === "published")).toBe(true);
    expect(item.related.map((r: { id: string }) => r.id)).toEqual(related.map((s) => s.id));
  });

  test("related items that are not published are left out", async () => {
    // The last published story relates to the first two stories of the next status.
    const story = world.house.published.at(-1)!;
    const index = world.house.stories.findIndex((s) => s.id === story.id);
    const related = world.house.stories.slice(index + 1, index + 3);
    expect(related.some((s) => s.status !== "published")).toBe(true);
    const answer = await world.get(`/v1/public/newsroom/${story.slug}`);
    expect(answer.body.related.map((r: { id: string }) => r.id)).toEqual(
      related.filter((s) => s.status === "published").map((s) => s.id),
    );
  });

  test("an in_the_news item has an empty body and its external_url", async () => {
    const story = published("in_the_news");
    const answer = await world.get(`/v1/public/newsroom/${story.slug}`);
    expect(answer.status).toBe(200);
    expect(answer.body.body).toEqual([]);
    expect(answer.body.external_url).toBe(`https://coverage.example.com/${story.slug}`);
  });
});

describe("topics, search documents and the sitemap", () => {
  test("a topic page names the topic and lists its published items", async () => {
    const answer = await world.get("/v1/public/topics/h-topic-all");
    expect(answer.status).toBe(200);
    expect(answer.body.object).toBe("topic_page");
    expect(answer.body.topic).toEqual({
      slug: "h-topic-all",
      name: "H Topic All",
      url: `${ORIGIN}/newsroom/topics/h-topic-all`,
    });
    expect(answer.body.items).toHaveLength(6);
    expect(answer.body.has_more).toBe(false);
  });

  test("search documents are flattened", async () => {
    const answer = await world.get("/v1/public/search/newsroom");
    const story = published("video");
    const doc = answer.body.documents.find((d: { id: string }) => d.id === story.id);
    expect(doc).toEqual({
      id: story.id,
      title: story.title,
      summary: `Summary of ${story.slug}`,
      text: `Heading of ${story.slug}\nParagraph of ${story.slug}\nCleared image of ${story.slug}`,
      url: `${ORIGIN}/newsroom/${story.slug}`,
      type: "video",
      topics: ["H Topic All", "H Topic Video"],
      published_at: expect.any(String),
    });
    expect(answer.body.documents).toHaveLength(6);
  });

  test("sitemap entries carry loc and lastmod", async () => {
    const answer = await world.get("/v1/public/sitemap/newsroom");
    expect(answer.body.object).toBe("sitemap");
    for (const entry of answer.body.entries) {
      expect(Object.keys(entry).sort()).toEqual(["lastmod", "loc"]);
      expect(entry.loc).toStartWith(`${ORIGIN}/newsroom/h-`);
      expect(Number.isNaN(Date.parse(entry.lastmod))).toBe(false);
    }
  });

  test("a walk of the index sees every published item once", async () => {
    const pages = await walkPages(world.get, "/v1/public/newsroom");
    const ids = pages.flatMap((p) => p.body.items.map((i: { id: string }) => i.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(world.house.published.length);
  });
});
