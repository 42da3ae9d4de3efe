import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sites } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { sql } from "drizzle-orm";
import { buildWorld, createOrg, NEWSROOM_HOST, type World } from "./support/world.ts";
import { sitemapSchemaErrors } from "./support/xml-schema.ts";

/**
 * A site with 50,001 published stories (inserted in one statement): its sitemap.xml is a sitemap
 * index of two parts, as the protocol asks past 50,000 addresses per file, and every file
 * validates against the sitemaps.org schemas.
 */
const SLOW = 180_000;
const STORIES = 50_001;
const SITE = "bulk-news";

let world: World;
beforeAll(async () => {
  world = await buildWorld();
  const { db } = world.database;
  const orgId = await createOrg(db, "bulk-co", true);
  await db.insert(sites).values({
    id: newId(),
    organizationId: orgId,
    slug: SITE,
    name: "Bulk News",
    publisher: "Bulk Co",
    accent: "#123456",
    enabled: true,
    live: true,
  });
  await db.execute(sql`
    insert into stories (id, organization_id, type, slug, status, published_at, updated_at)
    select gen_random_uuid(), ${orgId}, 'insight', 'bulk-' || n, 'published',
           now() - n * interval '1 second', now() - n * interval '1 second'
    from generate_series(1, ${STORIES}) as n`);
}, SLOW);
afterAll(() => world.close());

function locsOf(xml: string): string[] {
  return [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]!);
}

describe("a sitemap past 50,000 addresses", () => {
  test(
    "is an index of two valid parts listing the home page and every story once",
    async () => {
      const home = `${NEWSROOM_HOST}/${SITE}`;
      const index = await world.get(`/n/${SITE}/sitemap.xml`);
      expect(index.status).toBe(200);
      expect(await sitemapSchemaErrors(index.text, "siteindex.xsd")).toEqual([]);
      expect(locsOf(index.text)).toEqual([`${home}/sitemap-1.xml`, `${home}/sitemap-2.xml`]);

      const first = await world.get(`/n/${SITE}/sitemap-1.xml`);
      const second = await world.get(`/n/${SITE}/sitemap-2.xml`);
      expect(await sitemapSchemaErrors(first.text, "sitemap.xsd")).toEqual([]);
      expect(await sitemapSchemaErrors(second.text, "sitemap.xsd")).toEqual([]);
      const listed = [...locsOf(first.text), ...locsOf(second.text)];
      expect(locsOf(first.text).length).toBe(50_000);
      expect(listed.length).toBe(STORIES + 1);
      expect(new Set(listed).size).toBe(STORIES + 1);
      expect(listed[0]).toBe(home);
      expect(listed.at(-1)).toBe(`${home}/bulk-${STORIES}`);
      expect((await world.get(`/n/${SITE}/sitemap-3.xml`)).status).toBe(404);
    },
    SLOW,
  );
});
