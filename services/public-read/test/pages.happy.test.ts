import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { organizations } from "@newsroom/shared/db/schema";
import { edge } from "@newsroom/shared/http/edge";
import { serviceEntry } from "@newsroom/shared/service";
import { eq } from "drizzle-orm";
import { buildWorld, NEWSROOM_HOST, type World } from "./support/world.ts";

const SLOW = 60_000;
let world: World;
beforeAll(async () => {
  world = await buildWorld();
}, SLOW);
afterAll(() => world.close());

const HOUSE_HOME = `${new URL(NEWSROOM_HOST).origin}/newsroom`;
const onHost = (host: string) => ({ host });

describe("house newsroom pages", () => {
  test("the index: HTML with the published items, cached and tagged as the JSON index", async () => {
    const answer = await world.get("/newsroom");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    // A browser asks again each time; shared caches keep it as the JSON index.
    expect(answer.headers.get("cache-control")).toBe(
      "public, max-age=0, s-maxage=300, stale-while-revalidate=86400, stale-if-error=604800",
    );
    const json = await world.get("/v1/public/newsroom");
    expect(json.headers.get("cache-control")).toBe(
      "public, s-maxage=300, stale-while-revalidate=86400, stale-if-error=604800",
    );
    for (const page of [answer, await world.get("/newsroom/no-such-story")]) {
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      expect(page.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(page.headers.get("x-frame-options")).toBe("DENY");
    }
    expect(answer.headers.get("cache-tag")).toBe("newsroom-index");
    expect(answer.text).toContain('<html lang="en">');
    expect(answer.text).toContain(`<link rel="canonical" href="${HOUSE_HOME}">`);
    for (const story of world.house.published) expect(answer.text).toContain(story.title);
    const again = await world.get("/newsroom", { "if-none-match": answer.headers.get("etag")! });
    expect(again.status).toBe(304);
  });

  test("type and topic filters, and more by cursor", async () => {
    const byType = await world.get("/newsroom?type=video");
    expect(byType.status).toBe(200);
    expect(byType.text).toContain("Title of h-video-published");
    expect(byType.text).not.toContain("Title of h-insight-published");
    const byTopic = await world.get("/newsroom?topic=h-topic-video");
    expect(byTopic.headers.get("cache-tag")).toBe("newsroom-index,topic:h-topic-video");
    expect(byTopic.text).toContain("Title of h-video-published");
    expect(byTopic.text).not.toContain("Title of h-event-published");
  });

  test("an item: its body from its blocks, cleared image, people, related; JSON-LD", async () => {
    const answer = await world.get("/newsroom/h-insight-published");
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("<h1>Title of h-insight-published</h1>");
    expect(answer.text).toContain("<h2>Heading of h-insight-published</h2>");
    expect(answer.text).toContain("<p>Paragraph of h-insight-published</p>");
    expect(answer.text).toContain(
      "https://cdn.example.com/house-news/h-insight-published/cleared.jpg",
    );
    expect(answer.text).toContain("Editor of house-news");
    const item = (await world.get("/v1/public/newsroom/h-insight-published")).body;
    expect(answer.headers.get("cache-tag")).toBe(
      [item.id, ...item.related.map((r: { id: string }) => r.id)]
        .map((id) => `content:${id}`)
        .join(","),
    );
    const ld = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(answer.text);
    const article = JSON.parse(ld![1]!);
    expect(article).toMatchObject({
      "@context": "https://schema.org",
      "@type": "NewsArticle",
      headline: "Title of h-insight-published",
      datePublished: item.published_at,
      dateModified: item.updated_at,
      mainEntityOfPage: { "@type": "WebPage", "@id": item.url },
      image: [item.image.url],
    });
    expect(article.author.length).toBeGreaterThan(0);
    expect(article.publisher).toMatchObject({ "@type": "Organization" });
  });

  test("an in_the_news item links out to the coverage", async () => {
    const answer = await world.get("/newsroom/h-in-the-news-published");
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('href="https://coverage.example.com/h-in-the-news-published"');
  });

  test("a topic page, at the address the JSON records give", async () => {
    const json = await world.get("/v1/public/topics/h-topic-all");
    expect(json.body.topic.url).toBe(`${HOUSE_HOME}/topics/h-topic-all`);
    const answer = await world.get("/newsroom/topics/h-topic-all");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-tag")).toBe("topic:h-topic-all");
    expect(answer.text).toContain("Title of h-video-published");
  });

  test("404 page for no such item or topic, cached 60 s", async () => {
    for (const path of [
      "/newsroom/no-such-story",
      "/newsroom/topics/no-such-topic",
      "/newsroom/a/b/c",
    ]) {
      const answer = await world.get(path);
      expect(answer.status).toBe(404);
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(answer.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=60");
      expect(answer.text).toContain("Page not found");
    }
  });
});

describe("hosted site pages", () => {
  test("by slug at NEWSROOM_HOST's path: index, item and topic, themed by the site", async () => {
    const index = await world.get("/n/client-news");
    expect(index.status).toBe(200);
    expect(index.headers.get("cache-tag")).toBe("site:client-news,site:client-news:newsroom-index");
    expect(index.text).toContain("Client News");
    expect(index.text).toContain("Published by Client Co");
    expect(index.text).toContain('src="https://cdn.example.com/client-co/logo.svg"');
    expect(index.text).toContain('<link rel="canonical" href="https://news.client.example">');
    for (const story of world.client.published) expect(index.text).toContain(story.title);
    const item = await world.get("/n/client-news/c-video-published");
    expect(item.status).toBe(200);
    expect(item.text).toContain("<h1>Title of c-video-published</h1>");
    const topic = await world.get("/n/client-news/topics/c-topic-all");
    expect(topic.status).toBe(200);
  });

  test("by the client's hostname (Host): index, item and topic", async () => {
    const host = onHost(world.client.activeHost);
    const index = await world.get("/", host);
    expect(index.status).toBe(200);
    expect(index.headers.get("cache-tag")).toBe(
      "site:client-news,site:client-news:newsroom-index,host:news.client.example",
    );
    expect(index.text).toContain("Client News");
    const item = await world.get("/c-video-published", host);
    expect(item.status).toBe(200);
    expect(item.text).toContain("<h1>Title of c-video-published</h1>");
    expect(item.text).toContain(
      '<link rel="canonical" href="https://news.client.example/c-video-published">',
    );
    const topic = await world.get("/topics/c-topic-all", host);
    expect(topic.status).toBe(200);
    // `/newsroom` on the client's hostname is the client's, never the house index.
    const newsroom = await world.get("/newsroom", host);
    expect(newsroom.status).toBe(404);
    expect(newsroom.text).toContain("Client News");
  });

  test("HEAD on the client's hostname answers as GET does", async () => {
    const handle = edge(serviceEntry(world.service), { trustedProxies: "" });
    const head = await handle(
      new Request("http://news.client.example/", {
        method: "HEAD",
        headers: onHost(world.client.activeHost),
      }),
    );
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  test("the same path on two hostnames is two answers", async () => {
    const house = await world.get("/newsroom");
    const client = await world.get("/newsroom", onHost(world.client.activeHost));
    expect(house.status).toBe(200);
    expect(client.status).toBe(404);
  });

  test("API routes on a client's hostname are the API", async () => {
    const answer = await world.get("/v1/public/sites/client-news", onHost(world.client.activeHost));
    expect(answer.status).toBe(200);
    expect(answer.body.object).toBe("site");
  });

  test("unknown, pending and disabled hosts get a plain 404 page", async () => {
    for (const host of ["unknown.example", world.client.pendingHost, world.disabled.activeHost]) {
      const answer = await world.get("/", onHost(host));
      expect(answer.status).toBe(404);
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(answer.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=60");
      expect(answer.text).toContain("There is no newsroom at this address.");
    }
  });

  test("no such site by slug: plain 404 page", async () => {
    for (const path of ["/n/no-such-site", "/n/disabled-news", "/n/Bad_Site"]) {
      const answer = await world.get(path);
      expect(answer.status).toBe(404);
      expect(answer.text).toContain("There is no newsroom at this address.");
    }
  });
});

describe("newsletter on the page", () => {
  test("the organization's form (embed.js fields and endpoint) only while its newsletter is enabled", async () => {
    const without = await world.get("/n/client-news");
    expect(without.text).not.toContain("data-newsletter");
    await world.database.db
      .update(organizations)
      .set({ newsletterEnabled: true })
      .where(eq(organizations.id, world.client.id));
    try {
      const base = world.runtime.config.PUBLIC_BASE_URL;
      // Read at NEWSROOM_HOST's path, a sign-up returns there, not to the canonical hostname
      // (which may not resolve where the page is read, as the demo's in development).
      for (const [path, headers, returnTo] of [
        ["/n/client-news", {}, `${NEWSROOM_HOST}/client-news`],
        ["/n/client-news/c-video-published", {}, `${NEWSROOM_HOST}/client-news/c-video-published`],
        [
          "/c-video-published",
          onHost(world.client.activeHost),
          "https://news.client.example/c-video-published",
        ],
      ] as const) {
        const page = await world.get(path, headers);
        expect(page.status).toBe(200);
        const form = /<form data-newsletter method="post" action="([^"]+)">(.*?)<\/form>/s.exec(
          page.text,
        );
        expect(form?.[1]).toBe(`${base}/v1/public/newsletter/client-co/subscribe`);
        for (const field of [
          "email",
          "consent",
          "submission_id",
          "started_at",
          "redirect",
          "fax",
        ]) {
          expect(form?.[2]).toContain(`name="${field}"`);
        }
        expect(form?.[2]).toContain(`name="redirect" value="${returnTo}"`);
        expect(page.text).toContain(`<script src="${base}/v1/public/newsletter/embed.js" defer>`);
      }
      // The house's newsletter is off: no form there, and no sign-up page.
      expect((await world.get("/newsroom")).text).not.toContain("data-newsletter");
      expect((await world.get("/newsroom/_newsletter")).status).toBe(404);
    } finally {
      await world.database.db
        .update(organizations)
        .set({ newsletterEnabled: false })
        .where(eq(organizations.id, world.client.id));
    }
  });

  test("without JavaScript: a sign-up page of its own, with a submission id for each reader", async () => {
    await world.database.db
      .update(organizations)
      .set({ newsletterEnabled: true })
      .where(eq(organizations.id, world.client.id));
    try {
      const index = await world.get("/", onHost(world.client.activeHost));
      expect(index.text).toContain(
        '<noscript><p>Without JavaScript, <a href="https://news.client.example/_newsletter">',
      );
      expect((await world.get("/n/client-news")).text).toContain(
        `<noscript><p>Without JavaScript, <a href="${NEWSROOM_HOST}/client-news/_newsletter">`,
      );
      const ids = new Set<string>();
      for (const [path, headers, returnTo] of [
        ["/_newsletter", onHost(world.client.activeHost), "https://news.client.example"],
        ["/n/client-news/_newsletter", {}, `${NEWSROOM_HOST}/client-news`],
      ] as const) {
        const page = await world.get(path, headers);
        expect(page.status).toBe(200);
        expect(page.headers.get("cache-control")).toBe("no-store");
        const id = /name="submission_id" value="([0-9a-f-]{36})"/.exec(page.text)?.[1];
        const startedAt = Number(/name="started_at" value="(\d+)"/.exec(page.text)?.[1]);
        expect(id).toBeDefined();
        ids.add(id!);
        expect(Math.abs(Date.now() - startedAt)).toBeLessThan(60_000);
        expect(page.text).toContain(`name="redirect" value="${returnTo}"`);
      }
      expect(ids.size).toBe(2);
    } finally {
      await world.database.db
        .update(organizations)
        .set({ newsletterEnabled: false })
        .where(eq(organizations.id, world.client.id));
    }
  });
});
