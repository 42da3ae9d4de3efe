import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { STORY_STATUSES, stories } from "@newsroom/shared/db/schema";
import type { TestDatabase } from "@newsroom/shared/testing/database";
import { testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { and, eq, inArray, sql } from "drizzle-orm";
import { createPublicReadService } from "../src/app.ts";
import {
  type Answer,
  client,
  createOrg,
  HOUSE_ORG,
  type Service,
  type StorySpec,
  seedStories,
  testConfig,
  walkPages,
} from "./support/world.ts";

/**
 * Cursor paging: every page of a 200-item index and of a topic, each published item exactly
 * once and in order (newest first, ties broken by id), drafts interleaved and never shown.
 */
const SLOW = 120_000;

let database: TestDatabase;
let service: Service;
let get: (path: string) => Promise<Answer>;
let houseId: string;

async function expectedOrder(topicOnly = false): Promise<string[]> {
  const rows = await database.db
    .select({
      id: stories.id,
      at: sql<string>`to_char(${stories.publishedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`,
      slug: stories.slug,
    })
    .from(stories)
    .where(and(eq(stories.organizationId, houseId), eq(stories.status, "published")));
  return rows
    .filter((row) => !topicOnly || Number(row.slug.split("-").at(-1)) % 2 === 0)
    .sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1))
    .map((row) => row.id);
}

function itemIds(pages: Answer[]): string[] {
  return pages.flatMap((page) => page.body.items.map((item: { id: string }) => item.id));
}

beforeAll(async () => {
  database = await testDatabase();
  houseId = await createOrg(database.db, HOUSE_ORG, true);
  const specs: StorySpec[] = [];
  for (let i = 0; i < 260; i++) {
    // Every fifth story is hidden in some status other than published.
    const hidden = i % 5 === 4;
    const status = hidden
      ? STORY_STATUSES.filter((s) => s !== "published")[Math.floor(i / 5) % 10]!
      : "published";
    specs.push({
      type: "insight",
      status,
      slug: `p-story-${i}`,
      topics: i % 2 === 0 ? ["even"] : ["odd"],
      ageDays: i * 0.25,
    });
  }
  const seeded = await seedStories(database.db, houseId, specs);
  const published = seeded.filter((s) => s.status === "published");
  expect(published.length).toBeGreaterThanOrEqual(200);
  // Exactly 200 published: the rest go back to draft.
  const extra = published.slice(200).map((s) => s.id);
  if (extra.length > 0) {
    await database.db
      .update(stories)
      .set({ status: "draft", publishedAt: null })
      .where(inArray(stories.id, extra));
  }
  // Twenty items share one instant, across a page boundary: the id breaks the tie.
  const tied = published.slice(15, 35).map((s) => s.id);
  await database.db
    .update(stories)
    .set({ publishedAt: new Date("2026-01-01T12:00:00.123Z") })
    .where(inArray(stories.id, tied));
  service = await createPublicReadService(testRuntime({ database, config: testConfig() }));
  get = client(service);
}, SLOW);

afterAll(async () => {
  await service.stop();
  await database.close();
});

describe("index paging", () => {
  test(
    "every page of a 200-item index, each item once and in order",
    async () => {
      const pages = await walkPages(get, "/v1/public/newsroom");
      expect(pages).toHaveLength(9);
      for (const [index, page] of pages.entries()) {
        expect(page.status).toBe(200);
        expect(page.body.items.length).toBe(index < 8 ? 24 : 200 - 8 * 24);
        expect(page.body.has_more).toBe(index < 8);
        if (index === 8) expect(page.body.next_cursor).toBeNull();
        else expect(page.body.next_cursor).toMatch(/^[A-Za-z0-9_-]{1,200}$/);
      }
      const ids = itemIds(pages);
      expect(new Set(ids).size).toBe(200);
      expect(ids).toEqual(await expectedOrder());
    },
    SLOW,
  );

  test(
    "every page of a topic, each item once and in order",
    async () => {
      const pages = await walkPages(get, "/v1/public/topics/even");
      const expected = await expectedOrder(true);
      expect(expected.length).toBeGreaterThan(48);
      expect(pages.length).toBe(Math.ceil(expected.length / 24));
      expect(itemIds(pages)).toEqual(expected);
      for (const page of pages) expect(page.body.topic.slug).toBe("even");
    },
    SLOW,
  );

  test(
    "the topic filter of the index pages the same way",
    async () => {
      const pages = await walkPages(get, "/v1/public/newsroom?topic=even&type=insight");
      expect(itemIds(pages)).toEqual(await expectedOrder(true));
    },
    SLOW,
  );

  test(
    "a cursor stays valid while items are published ahead of it",
    async () => {
      const first = await get("/v1/public/newsroom");
      const expected = await expectedOrder();
      await seedStories(database.db, houseId, [
        { type: "event", status: "published", slug: "brand-new", topics: [], ageDays: 0 },
      ]);
      const second = await get(`/v1/public/newsroom?cursor=${first.body.next_cursor}`);
      expect(second.body.items.map((i: { id: string }) => i.id)).toEqual(expected.slice(24, 48));
      const fresh = await get("/v1/public/newsroom");
      expect(fresh.body.items[0].slug).toBe("brand-new");
    },
    SLOW,
  );
});

describe("search documents", () => {
  test(
    "at most 500, newest first",
    async () => {
      const more: StorySpec[] = Array.from({ length: 320 }, (_, i) => ({
        type: "video",
        status: "published",
        slug: `q-story-${i}`,
        topics: [],
        ageDays: 200 + i * 0.01,
      }));
      await seedStories(database.db, houseId, more);
      const answer = await get("/v1/public/search/newsroom");
      expect(answer.status).toBe(200);
      expect(answer.body.documents).toHaveLength(500);
      const expected = await expectedOrder();
      expect(expected.length).toBe(521);
      expect(answer.body.documents.map((d: { id: string }) => d.id)).toEqual(
        expected.slice(0, 500),
      );
      const sitemap = await get("/v1/public/sitemap/newsroom");
      expect(sitemap.body.entries).toHaveLength(521);
    },
    SLOW,
  );
});
