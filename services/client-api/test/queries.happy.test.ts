import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Db, schema } from "@newsroom/shared/db/index";
import { organizations } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { listStoryRows } from "../src/stories/store.ts";

/**
 * The page queries on PostgreSQL with a realistic table: each list's ORDER BY is served by an
 * index (no scan of the organization's other stories), and the statements are prepared once per
 * connection and kept, their text independent of the values.
 */
const databaseUrl = requireService("DATABASE_URL");

describe.skipIf(!databaseUrl)("story page queries on PostgreSQL", () => {
  let database: TestDatabase;
  let client: ReturnType<typeof postgres>;
  let db: Db;
  const large = newId();
  const others: string[] = [];

  beforeAll(async () => {
    database = await testDatabase({ backend: "postgres" });
    // One connection, so that the statements it prepared can be listed on it.
    client = postgres(database.url!, { max: 1, onnotice: () => {} });
    db = drizzle(client, { schema }) as unknown as Db;
    for (let i = 0; i < 40; i++) others.push(newId());
    await db
      .insert(organizations)
      .values(
        [large, ...others].map((id) => ({ id, slug: `o-${id}`, name: "O", newsroomRunning: true })),
      );
    // 3,000 stories in the large organization (three waiting for review), 50 in each other.
    await db.execute(sql`
      insert into stories (id, organization_id, type, slug, status, updated_at)
      select gen_random_uuid(), ${large}::uuid, 'insight', 's-' || g,
        case when g in (10, 1500, 2990) then 'review_required' else 'published' end,
        now() - (g || ' seconds')::interval
      from generate_series(1, 3000) g`);
    await db.execute(sql`
      insert into stories (id, organization_id, type, slug, status, updated_at)
      select gen_random_uuid(), o.id, 'insight', 's-' || g,
        case when g % 5 = 0 then 'review_required' else 'draft' end,
        now() - (g || ' seconds')::interval
      from organizations o, generate_series(1, 50) g where o.id <> ${large}::uuid`);
    await db.execute(sql`analyze stories`);
  }, 60_000);

  afterAll(async () => {
    await client.end();
    await database.close();
  });

  async function plan(query: string): Promise<string> {
    const rows = await client.unsafe(`explain analyze ${query}`);
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  }

  test("the approval queue reads only the organization's stories in review", async () => {
    const text = await plan(`select id from stories
      where organization_id = '${large}' and status = 'review_required'
      order by updated_at desc, id desc limit 26`);
    expect(text).toContain("stories_org_status_updated_idx");
    expect(text).not.toContain("Rows Removed by Filter");
    expect(text).not.toMatch(/\bSort\b/);
  });

  test("the full list is read in index order, newest change first", async () => {
    const text = await plan(`select id from stories where organization_id = '${large}'
      order by updated_at desc, id desc limit 26`);
    expect(text).toContain("Scan Backward using stories_org_updated_idx");
    expect(text).not.toMatch(/\bSort\b/);
  });

  test("page statements are prepared once per shape and kept across requests", async () => {
    const prepared = async () =>
      (
        await client`select statement from pg_prepared_statements where statement like ${"%story_versions%"}`
      ).map((row) => row.statement as string);
    expect(await prepared()).toEqual([]);
    for (const organizationId of [large, ...others.slice(0, 5)]) {
      const first = await listStoryRows(db, organizationId, { limit: 3 });
      const last = first[first.length - 1]!;
      await listStoryRows(db, organizationId, {
        limit: 3,
        after: { micros: BigInt(last.micros), id: last.story.id },
      });
      await listStoryRows(db, organizationId, { limit: 3, statuses: ["review_required"] });
      await listStoryRows(db, organizationId, { limit: 3, statuses: ["draft", "published"] });
    }
    const statements = await prepared();
    // Four shapes were used, by six organizations: four statements, whatever the values.
    expect(statements).toHaveLength(4);
    const queue = await listStoryRows(db, large, { limit: 25, statuses: ["review_required"] });
    expect(queue.map((row) => row.story.slug)).toEqual(["s-10", "s-1500", "s-2990"]);
    const many = await listStoryRows(db, others[0]!, {
      limit: 100,
      statuses: ["review_required", "draft"],
    });
    expect(many).toHaveLength(50);
    expect(await prepared()).toHaveLength(4);
  });
});
