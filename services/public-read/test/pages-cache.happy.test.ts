import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import {
  activateHostnameRow,
  applyStoryAction,
  insertHostname,
  insertSite,
  insertStory,
} from "@newsroom/shared/testing/builders";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import { announceSiteChange, storyActionOnBus } from "./support/events.ts";
import {
  type Answer,
  client,
  createOrg,
  HOUSE_ORG,
  type Service,
  seedStories,
  testConfig,
} from "./support/world.ts";

const SLOW = 60_000;

describe("pages follow publishes and site changes", () => {
  const bus = new MemoryBus();
  let database: TestDatabase;
  let orgId: string;
  let service: Service;
  let get: (path: string, headers?: Record<string, string>) => Promise<Answer>;

  beforeAll(async () => {
    database = await testDatabase();
    orgId = await createOrg(database.db, HOUSE_ORG, true);
    await seedStories(database.db, orgId, [
      { type: "insight", status: "published", slug: "first-story", topics: ["world"] },
      { type: "event", status: "published", slug: "other-story", topics: ["elsewhere"] },
    ]);
    service = await createPublicReadService(testRuntime({ database, bus, config: testConfig() }));
    get = client(service);
  }, SLOW);
  afterAll(async () => {
    await service.stop();
    await bus.close();
    await database.close();
  });

  test(
    "a publish shows on the index, its topic and its item; an unpublish takes it off",
    async () => {
      expect((await get("/newsroom")).text).not.toContain("Title fresh-story");
      expect((await get("/newsroom/fresh-story")).status).toBe(404);
      expect((await get("/newsroom/other-story")).text).toContain("Title of other-story");

      const story = await insertStory(database.db, orgId, {
        type: "press_release",
        slug: "fresh-story",
        title: "Title fresh-story",
        body: [{ type: "paragraph", text: "Text of the fresh story" }],
        topics: ["world"],
      });
      await applyStoryAction(database.db, story.id, "submit");
      await applyStoryAction(database.db, story.id, "approve");
      await storyActionOnBus(database.db, bus, story.id, "publish");
      await eventually(async () => (await get("/newsroom")).text.includes("Title fresh-story"), {
        message: "the index page shows the published story",
      });
      const item = await get("/newsroom/fresh-story");
      expect(item.status).toBe(200);
      expect(item.text).toContain("<p>Text of the fresh story</p>");
      expect((await get("/newsroom/topics/world")).text).toContain("Title fresh-story");
      expect((await get("/newsroom/other-story")).text).toContain("Title of other-story");

      await storyActionOnBus(database.db, bus, story.id, "unpublish");
      await eventually(async () => (await get("/newsroom/fresh-story")).status === 404, {
        message: "the unpublished story's page is gone",
      });
      expect((await get("/newsroom")).text).not.toContain("Title fresh-story");
    },
    SLOW,
  );

  test(
    "a hostname activated and announced serves the site's pages; before, a plain 404",
    async () => {
      const site = await insertSite(database.db, orgId, {
        slug: "house-site",
        name: "House Site",
        publisher: "House",
      });
      await insertHostname(database.db, site, "news.house.example", { active: false });
      await announceSiteChange(bus, orgId, "house-site");
      const host = { host: "news.house.example" };
      const pending = await get("/", host);
      expect(pending.status).toBe(404);
      expect(pending.headers.get("cache-tag")).toBe("host:news.house.example");

      await activateHostnameRow(database.db, "news.house.example");
      await announceSiteChange(bus, orgId, "house-site");
      await eventually(async () => (await get("/", host)).status === 200, {
        message: "the host page",
      });
      const index = await get("/", host);
      expect(index.text).toContain("House Site");
      expect(index.text).toContain('<link rel="canonical" href="https://news.house.example">');
      expect((await get("/first-story", host)).status).toBe(200);
    },
    SLOW,
  );
});
