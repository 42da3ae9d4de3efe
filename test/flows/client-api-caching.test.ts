import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiKeys } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import {
  type Embedded,
  embedded,
  newKey,
  organizationWithStories,
} from "../support/client-api-embedded.ts";

/**
 * A flow across two services: the client API's answers are cached by the organization's data
 * version, read with the key on every request; every change made through the workspace moves the
 * version in its own transaction, so it shows on the very next request.
 */
let e: Embedded;
let org: Awaited<ReturnType<typeof organizationWithStories>>;

beforeAll(async () => {
  e = await embedded();
  org = await organizationWithStories(e);
});
afterAll(async () => {
  await e.close();
});

async function json(response: Response) {
  expect(response.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: answers are read loosely and asserted on
  return (await response.json()) as any;
}

async function statusOf(storyId: string, key = org.key): Promise<string | undefined> {
  const list = await json(await e.get("/v1/stories?limit=100", key));
  return list.data.find((story: { id: string }) => story.id === storyId)?.status;
}

describe("the cache in embedded mode", () => {
  test("is on, and holds the page after one request (never the key record)", async () => {
    expect(e.service.cache).toBeDefined();
    const before = e.service.cache!.size;
    await json(await e.get("/v1/stories?limit=25", org.key));
    expect(e.service.cache!.size).toBe(before + 1);
    // The same request normalized differently is the same entry.
    await json(await e.get("/v1/stories?limit=25&ignored=1", org.key));
    await json(await e.get("/v1/stories", org.key));
    expect(e.service.cache!.size).toBe(before + 1);
  });

  test("a transition or a new version shows on the very next list, queue and detail", async () => {
    const [storyId] = org.storyIds;
    expect(await statusOf(storyId!)).toBe("draft");
    expect((await json(await e.get("/v1/approvals", org.key))).data).toEqual([]);
    await json(await e.get(`/v1/stories/${storyId}`, org.key));

    const submitted = await e.workspace("POST", `/stories/${storyId}/transitions`, {
      action: "submit",
    });
    expect(submitted.status).toBe(200);
    expect(await statusOf(storyId!)).toBe("review_required");
    const queue = await json(await e.get("/v1/approvals", org.key));
    expect(queue.data.map((story: { id: string }) => story.id)).toEqual([storyId]);

    const approved = await e.workspace("POST", `/stories/${storyId}/transitions`, {
      action: "approve",
      actor_role: "approver",
    });
    expect(approved.status).toBe(200);
    const detail = await json(await e.get(`/v1/stories/${storyId}`, org.key));
    expect(detail.status).toBe("approved");
    expect(detail.approvals.map((a: { decision: string }) => a.decision)).toEqual(["approved"]);
    expect((await json(await e.get("/v1/approvals", org.key))).data).toEqual([]);

    const version = await e.workspace("POST", `/stories/${storyId}/versions`, {
      title: "A better title",
      summary: "A summary",
      body: [{ type: "paragraph", text: "Rewritten." }],
    });
    expect(version.status).toBe(201);
    const rewritten = await json(await e.get(`/v1/stories/${storyId}`, org.key));
    expect(rewritten.status).toBe("draft");
    expect(rewritten.title).toBe("A better title");
    expect(rewritten.body).toEqual([{ type: "paragraph", text: "Rewritten." }]);
  });

  test("a publication shows on the very next feed", async () => {
    const [, storyId] = org.storyIds;
    const empty = await json(await e.get("/v1/feed.json", org.key));
    expect(empty.items).toEqual([]);
    const rssBefore = await (await e.get("/v1/feed.xml", org.key)).text();
    expect(rssBefore).not.toContain("<item>");
    for (const action of ["submit", "approve", "publish"]) {
      expect(
        (await e.workspace("POST", `/stories/${storyId}/transitions`, { action })).status,
      ).toBe(200);
    }
    const feed = await json(await e.get("/v1/feed.json", org.key));
    expect(feed.items.map((item: { id: string }) => item.id)).toEqual([storyId]);
    expect(await (await e.get("/v1/feed.xml", org.key)).text()).toContain(
      `<guid isPermaLink="false">${storyId}</guid>`,
    );
  });

  test("a new story shows on the very next list", async () => {
    const before = await json(await e.get("/v1/stories?limit=100", org.key));
    const created = await e.workspace("POST", `/orgs/${org.slug}/stories`, {
      type: "insight",
      slug: "third-story",
      title: "The third story",
    });
    expect(created.status).toBe(201);
    const after = await json(await e.get("/v1/stories?limit=100", org.key));
    expect(after.data.length).toBe(before.data.length + 1);
    expect(after.data[0].id).toBe(created.body.id);
  });

  test("stopping the newsroom empties the lists at once; restarting shows them again", async () => {
    expect((await json(await e.get("/v1/stories", org.key))).data.length).toBeGreaterThan(0);
    const feedBefore = await json(await e.get("/v1/feed.json", org.key));
    expect(feedBefore.items.length).toBe(1);
    expect(
      (await e.workspace("PATCH", `/orgs/${org.slug}`, { newsroom_running: false })).status,
    ).toBe(200);
    expect((await json(await e.get("/v1/stories", org.key))).data).toEqual([]);
    expect((await json(await e.get("/v1/feed.json", org.key))).items).toEqual([]);
    expect(
      (await e.workspace("PATCH", `/orgs/${org.slug}`, { newsroom_running: true })).status,
    ).toBe(200);
    expect((await json(await e.get("/v1/stories", org.key))).data.length).toBeGreaterThan(0);
  });

  test("a renamed organization is the feed's title on the next request", async () => {
    await json(await e.get("/v1/feed.json", org.key));
    expect((await e.workspace("PATCH", `/orgs/${org.slug}`, { name: "Renamed & Co" })).status).toBe(
      200,
    );
    expect((await json(await e.get("/v1/feed.json", org.key))).title).toBe("Renamed & Co");
  });

  test("a hosted site and its hostname show in the feed's links on the next request", async () => {
    const before = await json(await e.get("/v1/feed.json", org.key));
    expect(before.home_page_url).toBeUndefined();
    const site = await e.workspace("POST", `/orgs/${org.slug}/sites`, {
      site: `site-${org.slug}`,
      name: "Site",
      publisher: "Publisher",
      enabled: true,
    });
    expect(site.status).toBe(201);
    const hosted = await json(await e.get("/v1/feed.json", org.key));
    expect(hosted.home_page_url).toBe(`https://news.example.com/site-${org.slug}`);
    const hostname = `news-${org.slug}.example.org`;
    expect(
      (await e.workspace("POST", `/sites/site-${org.slug}/hostnames`, { hostname })).status,
    ).toBe(201);
    expect(
      (await e.workspace("POST", `/sites/site-${org.slug}/hostnames/${hostname}/activate`)).status,
    ).toBe(200);
    const own = await json(await e.get("/v1/feed.json", org.key));
    expect(own.home_page_url).toBe(`https://${hostname}`);
    expect(own.items[0].url).toStartWith(`https://${hostname}/`);
  });

  test("a feed is one entry whatever host a request names; its address is PUBLIC_BASE_URL's", async () => {
    const sizes: number[] = [];
    for (const host of ["one.example.org", "two.example.org", "three.example.org"]) {
      const feed = await json(
        await e.get("/v1/feed.json", org.key, {
          host,
          "x-forwarded-host": host,
          "x-forwarded-proto": "https",
        }),
      );
      expect(feed.feed_url).toBe(`${e.config.PUBLIC_BASE_URL}/v1/feed.json`);
      sizes.push(e.service.cache!.size);
    }
    expect(new Set(sizes).size).toBe(1);
  });

  test("a key created in the workspace works on its first request", async () => {
    const key = await newKey(e, org.slug, ["stories:read"]);
    expect((await e.get("/v1/stories", key.secret)).status).toBe(200);
  });

  test("expiry is checked on every request, on the key row read for it", async () => {
    const key = await newKey(e, org.slug, ["stories:read"]);
    const expiresAt = new Date(Date.now() + 400);
    await e.database.db.update(apiKeys).set({ expiresAt }).where(eq(apiKeys.id, key.id));
    expect((await e.get("/v1/stories", key.secret)).status).toBe(200);
    expect((await e.get("/v1/stories", key.secret)).status).toBe(200);
    await Bun.sleep(Math.max(0, expiresAt.getTime() - Date.now()) + 20);
    const expired = await e.get("/v1/stories", key.secret);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_api_key",
    );
  });

  test("one organization's change leaves another's entries in place", async () => {
    const other = await organizationWithStories(e);
    await json(await e.get("/v1/stories", other.key));
    await json(await e.get("/v1/stories", org.key));
    const size = e.service.cache!.size;
    const story = await e.workspace("POST", `/orgs/${org.slug}/stories`, {
      type: "insight",
      slug: "fourth-story",
      title: "The fourth story",
    });
    expect(story.status).toBe(201);
    // The other organization's page is still found: no new entry.
    await json(await e.get("/v1/stories", other.key));
    expect(e.service.cache!.size).toBe(size);
    // The changed organization's is read again, under its new version.
    const list = await json(await e.get("/v1/stories", org.key));
    expect(list.data[0].id).toBe(story.body.id);
    expect(e.service.cache!.size).toBe(size + 1);
  });
});

describe("the read cache is bounded", () => {
  test("a service with a small cache still answers every request right", async () => {
    const small = await embedded({ service: { cache: { maxEntries: 2 } } });
    try {
      const one = await organizationWithStories(small);
      const two = await organizationWithStories(small);
      for (let i = 0; i < 3; i++) {
        for (const o of [one, two]) {
          const list = await json(await small.get("/v1/stories", o.key));
          expect(list.data.map((story: { id: string }) => story.id).sort()).toEqual(
            [...o.storyIds].sort(),
          );
        }
      }
      expect(small.service.cache!.size).toBeLessThanOrEqual(2);
    } finally {
      await small.close();
    }
  });
});
