import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { EventBus } from "@newsroom/shared/bus/index";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { type BusEvent, CachePurgedEvent, EVENT } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { Value } from "@sinclair/typebox/value";
import { createPublicReadService } from "../src/app.ts";
import { subscribePurges } from "../src/caching/invalidation.ts";
import { storyActionOnBus } from "./support/events.ts";
import {
  approvedStory,
  createOrg,
  HOUSE_ORG,
  houseAndClientWithSite,
  testConfig,
} from "./support/world.ts";

/**
 * The purge consumer: for each story or site event, one `cache.purged` event naming the tags
 * the event changed and the organization, for the gateways' answer caches. Its id comes from
 * the event's, so a redelivered event purges once.
 */
let database: TestDatabase;
let houseId: string;
let clientOrgId: string;

beforeAll(async () => {
  database = await testDatabase();
  ({ houseId, clientOrgId } = await houseAndClientWithSite(database.db));
});

afterAll(async () => {
  await database.close();
});

/** Every event of these types published on the bus, in order. */
async function collect(bus: MemoryBus, types: string[]) {
  const events: BusEvent[] = [];
  const subscription = await bus.subscribe(
    async (event) => {
      events.push(event);
    },
    { durable: `collector-${types.join("-")}`, types },
  );
  return { events, stop: () => subscription.stop() };
}

function purgeOf(event: BusEvent): CachePurgedEvent {
  expect(Value.Check(CachePurgedEvent, event)).toBe(true);
  return event as CachePurgedEvent;
}

/** Public reads on their own bus, with a collector of `cache.purged` and of story events. */
async function withService(
  body: (bus: MemoryBus, purges: BusEvent[], stories: BusEvent[]) => Promise<void>,
) {
  const bus = new MemoryBus();
  const service = await createPublicReadService(
    testRuntime({ database, bus, config: testConfig() }),
  );
  const purges = await collect(bus, [EVENT.cachePurged]);
  const stories = await collect(bus, [EVENT.storyPublished, EVENT.storyUnpublished]);
  try {
    await body(bus, purges.events, stories.events);
  } finally {
    await purges.stop();
    await stories.stop();
    await service.stop();
    await bus.close();
  }
}

describe("cache.purged from story events", () => {
  test("a house story's publish and unpublish each give one purge of the tags its answers carry", async () => {
    const storyId = await approvedStory(database.db, houseId, "purged-story", ["world", "energy"]);
    const expected = [
      `content:${storyId}`,
      "newsroom-index",
      "topic:energy",
      "topic:world",
      "search",
      "sitemap",
    ].sort();
    await withService(async (bus, purges, stories) => {
      await storyActionOnBus(database.db, bus, storyId, "publish");
      const published = purgeOf(
        await eventually(() => purges[0], { message: "the publish purge" }),
      );
      expect(stories.map((event) => event.type)).toEqual([EVENT.storyPublished]);
      expect(published.id).toBe(`${stories[0]!.id}.purge`);
      expect(published.data.organization_id).toBe(houseId);
      expect([...published.data.tags].sort()).toEqual(expected);

      await storyActionOnBus(database.db, bus, storyId, "unpublish");
      const unpublished = purgeOf(
        await eventually(() => purges[1], { message: "the unpublish purge" }),
      );
      expect(unpublished.id).toBe(`${stories[1]!.id}.purge`);
      expect(unpublished.data.organization_id).toBe(houseId);
      expect([...unpublished.data.tags].sort()).toEqual(expected);

      await Bun.sleep(100);
      expect(purges).toHaveLength(2);
    });
  });

  test("a client's story purges its site's tags under its own organization", async () => {
    const storyId = await approvedStory(database.db, clientOrgId, "client-purged", ["launches"]);
    await withService(async (bus, purges) => {
      await storyActionOnBus(database.db, bus, storyId, "publish");
      const purge = purgeOf(await eventually(() => purges[0], { message: "the purge" }));
      expect(purge.data.organization_id).toBe(clientOrgId);
      expect([...purge.data.tags].sort()).toEqual(
        [
          `content:${storyId}`,
          "site:client-news:newsroom-index",
          "site:client-news:topic:launches",
          "site:client-news:sitemap",
        ].sort(),
      );
    });
  });

  test("a story of an organization with no site, outside the house newsroom, purges nothing", async () => {
    const orgId = await createOrg(database.db, "siteless-co", true);
    const storyId = await approvedStory(database.db, orgId, "shown-nowhere", ["launches"]);
    await withService(async (bus, purges, stories) => {
      await storyActionOnBus(database.db, bus, storyId, "publish");
      await eventually(() => stories[0], { message: "the story event" });
      await Bun.sleep(300);
      expect(purges).toEqual([]);
    });
  });
});

describe("cache.purged from site events", () => {
  const siteChanged = (organizationId: string, site: string | null): BusEvent => ({
    id: newId(),
    type: EVENT.siteChanged,
    created_at: new Date().toISOString(),
    data: { organization_id: organizationId, site },
  });

  test("a named site: the site's answers and the answers of no organization", async () => {
    await withService(async (bus, purges) => {
      const event = siteChanged(clientOrgId, "client-news");
      await bus.publish(event);
      const purge = purgeOf(await eventually(() => purges[0], { message: "the purge" }));
      expect(purge.id).toBe(`${event.id}.purge`);
      expect(purge.data).toEqual({
        organization_id: clientOrgId,
        tags: ["site:client-news", "organization:unknown"],
      });
    });
  });

  test("no site named: the organization's answers and the answers of no organization", async () => {
    await withService(async (bus, purges) => {
      const event = siteChanged(clientOrgId, null);
      await bus.publish(event);
      const purge = purgeOf(await eventually(() => purges[0], { message: "the purge" }));
      expect(purge.id).toBe(`${event.id}.purge`);
      expect(purge.data).toEqual({
        organization_id: clientOrgId,
        tags: [`organization:${clientOrgId}`, "organization:unknown"],
      });
    });
  });

  test("an event naming no organization purges nothing", async () => {
    await withService(async (bus, purges) => {
      await bus.publish(siteChanged("not-an-organization", "client-news"));
      const named = siteChanged(clientOrgId, "client-news");
      await bus.publish(named);
      await eventually(() => purges[0], { message: "the named event's purge" });
      await Bun.sleep(50);
      expect(purges.map((event) => event.id)).toEqual([`${named.id}.purge`]);
    });
  });
});

describe("cache.purged from asset events", () => {
  test("an asset cleared: the organization's answers, under its organization", async () => {
    await withService(async (bus, purges) => {
      const event: BusEvent = {
        id: newId(),
        type: EVENT.assetCleared,
        created_at: new Date().toISOString(),
        data: { organization_id: clientOrgId, asset_id: newId() },
      };
      await bus.publish(event);
      const purge = purgeOf(await eventually(() => purges[0], { message: "the purge" }));
      expect(purge.id).toBe(`${event.id}.purge`);
      expect(purge.data).toEqual({
        organization_id: clientOrgId,
        tags: [`organization:${clientOrgId}`],
      });
    });
  });
});

test("a redelivered story event purges once: the purge's id is the event's", async () => {
  const storyId = await approvedStory(database.db, houseId, "redelivered-story", []);
  const real = new MemoryBus();
  // The bus keeps the first purge but its answer is lost: the consumer fails, the bus delivers
  // the story event again, and the consumer publishes its purge again.
  const purgeAttempts: string[] = [];
  const bus: EventBus = {
    kind: real.kind,
    subscribe: (handler, options) => real.subscribe(handler, options),
    close: () => real.close(),
    publish: async (event) => {
      const result = await real.publish(event);
      if (event.type !== EVENT.cachePurged) return result;
      purgeAttempts.push(event.id);
      if (purgeAttempts.length === 1) throw new Error("the answer was lost");
      return result;
    },
  };
  const purges = await collect(real, [EVENT.cachePurged]);
  const stories = await collect(real, [EVENT.storyPublished]);
  const consumer = await subscribePurges(bus, { db: database.db, houseOrg: HOUSE_ORG });
  try {
    await storyActionOnBus(database.db, bus, storyId, "publish");
    await eventually(() => purgeAttempts.length === 2, {
      message: "the redelivery",
      timeoutMs: 5_000,
    });
    await Bun.sleep(50);
    expect(purges.events).toHaveLength(1);
    const purge = purgeOf(purges.events[0]!);
    expect(stories.events).toHaveLength(1);
    expect(purge.id).toBe(`${stories.events[0]!.id}.purge`);
    expect(purgeAttempts).toEqual([purge.id, purge.id]);
    expect(purge.data.tags).toContain(`content:${storyId}`);
  } finally {
    await consumer.stop();
    await purges.stop();
    await stories.stop();
    await real.close();
  }
});
