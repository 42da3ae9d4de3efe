import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storyVersions } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { buildWorld, type World } from "./support/world.ts";

const SLOW = 60_000;
let world: World;
beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

/** The three ways to a newsroom's pages: the house, a site by slug, a site by its hostname. */
function places() {
  const host = { host: world.client.activeHost };
  return [
    { org: world.house, home: "/newsroom", prefix: "/newsroom", headers: {} },
    { org: world.client, home: "/n/client-news", prefix: "/n/client-news", headers: {} },
    { org: world.client, home: "/", prefix: "", headers: host },
  ];
}

function expectNothingHidden(text: string, hiddenTitles: string[]) {
  for (const url of world.forbiddenAssetUrls) expect(text).not.toContain(url);
  for (const name of world.foreignPeople) expect(text).not.toContain(name);
  for (const title of hiddenTitles) expect(text).not.toContain(`${title}<`);
}

describe("only published, public content on a page", () => {
  test("a draft, an unpublished or any other unpublished story has no page", async () => {
    for (const place of places()) {
      for (const story of place.org.hidden) {
        const answer = await world.get(`${place.prefix}/${story.slug}`, place.headers);
        expect({ slug: story.slug, status: answer.status }).toEqual({
          slug: story.slug,
          status: 404,
        });
        expect(answer.text).not.toContain(story.title);
      }
    }
  });

  test("indexes, filters, topics and items show no hidden story, uncleared asset or stranger", async () => {
    for (const place of places()) {
      const hidden = place.org.hidden.map((story) => story.title);
      const pages = [
        place.home,
        `${place.home}${place.home.endsWith("/") ? "" : "/"}?type=video`,
        `${place.prefix}/topics/${place.org === world.house ? "h" : "c"}-topic-all`,
        ...place.org.published.map((story) => `${place.prefix}/${story.slug}`),
      ];
      for (const path of pages) {
        const answer = await world.get(path, place.headers);
        expect({ path, status: answer.status }).toEqual({ path, status: 200 });
        expectNothingHidden(answer.text, hidden);
      }
      // A hidden story's own topic has no page.
      const secret = await world.get(
        `${place.prefix}/topics/${place.org === world.house ? "h" : "c"}-secret-draft`,
        place.headers,
      );
      expect(secret.status).toBe(404);
    }
  });

  test("a dormant organization's site shows no story", async () => {
    const index = await world.get(`/n/${world.dormant.site}`);
    expect(index.status).toBe(200);
    for (const story of world.dormant.stories) expect(index.text).not.toContain(story.title);
    const item = await world.get(`/n/${world.dormant.site}/${world.dormant.published[0]!.slug}`);
    expect(item.status).toBe(404);
  });

  test("every value is escaped: markup in a title is text on the page", async () => {
    const story = world.house.published.find((s) => s.type === "announcement")!;
    const markup = `<img src=x onerror=alert(1)></script><script>alert(2)</script>`;
    await world.database.db
      .update(storyVersions)
      .set({ title: markup, summary: `"><b>bold</b>` })
      .where(eq(storyVersions.storyId, story.id));
    try {
      for (const path of ["/newsroom", `/newsroom/${story.slug}`]) {
        const page = await world.get(path);
        expect(page.status).toBe(200);
        expect(page.text).not.toContain("<img src=x");
        expect(page.text).not.toContain("<script>alert");
        expect(page.text).not.toContain("<b>bold");
        expect(page.text).toContain("&lt;img src=x onerror=alert(1)&gt;");
      }
      const item = await world.get(`/newsroom/${story.slug}`);
      const ld = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(item.text);
      expect(JSON.parse(ld![1]!).headline).toBe(markup.slice(0, 110));
    } finally {
      await world.database.db
        .update(storyVersions)
        .set({ title: story.title, summary: `Summary of ${story.slug}` })
        .where(eq(storyVersions.storyId, story.id));
    }
  });

  test("a parameter that is not a page's (bad type, bad cursor, given twice) is the 404 page", async () => {
    for (const query of ["?type=nope", "?cursor=!!", "?cursor=AAAA", "?type=video&type=event"]) {
      const answer = await world.get(`/newsroom${query}`);
      expect({ query, status: answer.status }).toEqual({ query, status: 404 });
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    }
  });

  test("a client's X-Forwarded-Host cannot turn the house's page into a client's", async () => {
    // Through the gateway X-Forwarded-Host is always the Host it routed on; behind it the
    // header names the public host, and the same path answers for that host only.
    const house = await world.get("/newsroom");
    expect(house.status).toBe(200);
    const asClient = await world.get("/newsroom", { "x-forwarded-host": world.client.activeHost });
    expect(asClient.status).toBe(404);
    const houseAgain = await world.get("/newsroom");
    expect(houseAgain.text).toBe(house.text);
  });
});
