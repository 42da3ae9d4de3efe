import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assets, assetVariants, stories, storyAssets } from "@newsroom/shared/db/schema";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { and, eq } from "drizzle-orm";
import sharp from "sharp";
import { seedDemo } from "../src/demo/seed.ts";

/**
 * The demo's images are stored uploads the service serves itself: every story names a cleared
 * one (so every card shows a picture), the first ones an uncleared one too, and the client's
 * site logo is one; nothing points at a host that does not exist.
 */
describe("demo images", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await testDatabase({ backend: "pglite" });
    await seedDemo(database.db, "armage", "development");
  }, 120_000);
  afterAll(() => database?.close());

  test("every story has a cleared, uploaded image with variants; some name an uncleared one", async () => {
    const rows = await database.db
      .select({
        storyId: stories.id,
        cleared: assets.cleared,
        url: assets.url,
        width: assets.width,
      })
      .from(stories)
      .innerJoin(storyAssets, eq(storyAssets.storyId, stories.id))
      .innerJoin(assets, eq(assets.id, storyAssets.assetId));
    const allStories = await database.db.select({ id: stories.id }).from(stories);
    const withCleared = new Set(rows.filter((row) => row.cleared).map((row) => row.storyId));
    expect(withCleared.size).toBe(allStories.length);
    expect(rows.some((row) => !row.cleared)).toBe(true);
    for (const row of rows) {
      expect(row.url).toMatch(/^\/assets\/[0-9a-f]{20}-\d+\.webp$/);
      expect(row.width).toBeGreaterThan(0);
    }
  });

  test("no asset points elsewhere; the variants are real WebP images without metadata", async () => {
    const all = await database.db.select().from(assets);
    expect(all.filter((asset) => !asset.url.startsWith("/assets/"))).toEqual([]);
    expect(all.some((asset) => asset.kind === "logo" && asset.cleared)).toBe(true);
    const [variant] = await database.db
      .select()
      .from(assetVariants)
      .where(and(eq(assetVariants.contentType, "image/webp"), eq(assetVariants.width, 480)))
      .limit(1);
    const meta = await sharp(variant!.data).metadata();
    expect(meta).toMatchObject({ format: "webp", width: 480 });
    expect(meta.exif).toBeUndefined();
  });
});
