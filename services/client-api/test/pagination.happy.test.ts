import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stories } from "@newsroom/shared/db/schema";
import { syntheticStories } from "@newsroom/shared/demo/synthetic-stories";
import {
  insertOrganization,
  insertStories,
  insertStoryVersion,
} from "@newsroom/shared/testing/builders";
import { and, eq, inArray, sql } from "drizzle-orm";
import { clientApiFixture, type Fixture, makeKey, random } from "./support/fixture.ts";

const TOTAL = 1000;

let f: Fixture;
let orgId: string;
let key: string;
let ids: string[];

beforeAll(async () => {
  f = await clientApiFixture();
  const org = await insertOrganization(f.db, {
    slug: `walk-${random()}`,
    name: "Walk",
    newsroomRunning: true,
  });
  orgId = org.id;
  ids = await insertStories(f.db, org.id, syntheticStories(TOTAL, 3, "w-"), () => "draft");
  // Ties: 100 stories share one timestamp with microseconds (older than the rest, so the last
  // 100 rows), so only the id orders them; pages of 37 end inside the tie.
  await f.db
    .update(stories)
    .set({ updatedAt: sql`'2021-06-01T12:00:00.123456Z'::timestamptz` })
    .where(and(eq(stories.organizationId, org.id), inArray(stories.id, ids.slice(100, 200))));
  // Microseconds that JavaScript dates cannot hold.
  await f.db.execute(
    sql`update stories set updated_at = updated_at + interval '0.000789 seconds' where id in (${sql.join(
      ids.slice(300, 400).map((id) => sql`${id}::uuid`),
      sql`, `,
    )})`,
  );
  key = (await makeKey(f.db, org.id, ["stories:read"])).secret;
}, 120_000);

afterAll(async () => {
  await f.close();
});

async function page(cursor: string | null, limit: number) {
  const path = `/v1/stories?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`;
  const response = await f.get(path, { key });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    data: { id: string }[];
    has_more: boolean;
    next_cursor: string | null;
  };
}

describe("keyset pagination over 1,000 stories", () => {
  test("a quiet walk sees every story exactly once", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body = await page(cursor, 37);
      seen.push(...body.data.map((s) => s.id));
      cursor = body.next_cursor;
      pages++;
      expect(body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(pages).toBe(Math.ceil(TOTAL / 37));
    expect(seen).toHaveLength(TOTAL);
    expect(new Set(seen)).toEqual(new Set(ids));
  }, 60_000);

  test("a walk while another task updates stories skips and repeats no story that did not move", async () => {
    const moved = new Set<string>();
    let walking = true;
    let updates = 0;
    const updater = (async () => {
      let n = 0;
      while (walking) {
        const id = ids[Math.floor(Math.random() * ids.length)]!;
        moved.add(id);
        if (n++ % 2 === 0) {
          await insertStoryVersion(f.db, id, { title: `Updated ${n}` });
        } else {
          await f.db.execute(
            sql`update stories set updated_at = now() where id = ${id}::uuid and organization_id = ${orgId}::uuid`,
          );
        }
        updates++;
        await Bun.sleep(1);
      }
    })();
    const seen: string[] = [];
    let cursor: string | null = null;
    try {
      do {
        const body = await page(cursor, 37);
        seen.push(...body.data.map((s) => s.id));
        cursor = body.next_cursor;
        await Bun.sleep(2);
      } while (cursor);
    } finally {
      walking = false;
      await updater;
    }
    expect(updates).toBeGreaterThan(5);
    const counts = new Map<string, number>();
    for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
    const repeated = [...counts].filter(([, n]) => n > 1);
    expect(repeated).toEqual([]);
    const missing = ids.filter((id) => !moved.has(id) && !counts.has(id));
    expect(missing).toEqual([]);
    expect(seen.length).toBeGreaterThanOrEqual(TOTAL - moved.size);
  }, 120_000);

  test("the default page is 25 and limit 100 is the most", async () => {
    expect((await page(null, 25)).data).toHaveLength(25);
    const response = await f.get("/v1/stories", { key });
    expect((await response.json()).data).toHaveLength(25);
    expect((await page(null, 100)).data).toHaveLength(100);
  });
});
