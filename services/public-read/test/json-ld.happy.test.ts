import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assets } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { insertPublishedStory } from "@newsroom/shared/testing/builders";
import { buildWorld, NEWSROOM_HOST, type World } from "./support/world.ts";

/**
 * The NewsArticle JSON-LD of item pages, as a structured-data check reads it: the publisher has
 * its address and logo (the house's too, from its cleared logo asset), an item without an image
 * of its own (an `in_the_news` item has no body to hold one) shows that logo, and every author
 * has a `url`. The tests run in order: the first gives the house its logo.
 */
const SLOW = 60_000;
const HOUSE_HOME = `${new URL(NEWSROOM_HOST).origin}/newsroom`;
const CLIENT_HOST = "news.client.example";
const HOUSE_LOGO = "https://cdn.example.com/house-news/logo.png";

let world: World;
beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

type Thing = Record<string, unknown> & { url?: string };

async function articleOf(path: string, headers: Record<string, string> = {}) {
  const answer = await world.get(path, headers);
  expect(answer.status, path).toBe(200);
  const script = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(answer.text);
  expect(script, path).not.toBeNull();
  return {
    html: answer.text,
    article: JSON.parse(script![1]!) as {
      "@type": string;
      image?: string[];
      author: Thing[];
      publisher: Thing & { logo?: Thing };
    },
  };
}

describe("NewsArticle JSON-LD", () => {
  test("the house publisher has its address, and its cleared logo once it has one", async () => {
    const story = world.house.published.find((s) => s.type === "insight")!;
    const before = await articleOf(`/newsroom/${story.slug}`);
    expect(before.article.publisher).toMatchObject({ name: "Org house-news", url: HOUSE_HOME });
    expect(before.article.publisher.logo).toBeUndefined();

    const houseId = world.house.id;
    const db = world.database.db;
    await db.insert(assets).values([
      { id: newId(), organizationId: houseId, url: HOUSE_LOGO, kind: "logo", cleared: true },
      {
        id: newId(),
        organizationId: houseId,
        url: "https://cdn.example.com/house-news/logo-raw.png",
        kind: "logo",
        cleared: false,
      },
    ]);
    const after = await articleOf(`/newsroom/${story.slug}`);
    expect(after.article.publisher.logo).toEqual({ "@type": "ImageObject", url: HOUSE_LOGO });
    expect(after.html).not.toContain("logo-raw.png");
  });

  test("an in_the_news item without a cleared image shows the publisher's logo", async () => {
    const db = world.database.db;
    for (const [org, path, headers, logo] of [
      [world.client.id, "/", { host: CLIENT_HOST }, "https://cdn.example.com/client-co/logo.svg"],
      [world.house.id, "/newsroom/", {}, HOUSE_LOGO],
    ] as const) {
      const coverage = await insertPublishedStory(db, org, {
        type: "in_the_news",
        slug: `coverage-${newId().slice(0, 8)}`,
        title: "Coverage without a picture",
        externalUrl: "https://coverage.example.com/piece",
      });
      const { article } = await articleOf(`${path}${coverage.slug}`, headers);
      expect(article.image).toEqual([logo]);
      expect(article.publisher.logo?.url).toBe(logo);
    }
  });

  test("every author has a url: a person where the page lists them, else the publisher", async () => {
    const story = world.house.published.find((s) => s.type === "insight")!;
    const { article, html } = await articleOf(`/newsroom/${story.slug}`);
    const people = article.author.filter((author) => author["@type"] === "Person");
    expect(people.length).toBeGreaterThan(0);
    for (const person of people) {
      const url = new URL(person.url!);
      expect(`${url.origin}${url.pathname}`).toBe(`${HOUSE_HOME}/${story.slug}`);
      expect(html).toContain(`<li id="${url.hash.slice(1)}">${person.name}`);
    }
    const unsigned = world.house.published.find((s) => s.type === "in_the_news")!;
    const signedByHouse = (await articleOf(`/newsroom/${unsigned.slug}`)).article.author;
    for (const author of signedByHouse) expect(author.url).toBeTruthy();
  });
});
