import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, openDatabase } from "@newsroom/shared/db/index";
import { webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { and, count, eq, isNotNull, sql } from "drizzle-orm";
import { claimAndOpenAttempts, claimDueDeliveries } from "../src/delivery/store.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

const ENDPOINTS = 10;
/** Due deliveries waiting: a receiver that was down for a while. */
const BACKLOG = 20_000;
const limits = { leaseMs: 60_000, perEndpoint: 4, attemptMs: 20_000 };

let fx: Fixture;
/** Row `i` of the backlog goes to endpoint `i % ENDPOINTS` and is due in the order of `i`. */
let backlog: { id: string; endpointId: string }[];
/** One connection: the table statistics it flushes are those of its own claims. */
let single: Database;

beforeAll(async () => {
  fx = await webhooksFixture();
  const endpoints: string[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    endpoints.push((await fx.endpoint(`http://127.0.0.1:9/hook-${i}`)).id);
  }
  const dueSince = Date.now() - 60_000 - BACKLOG;
  const rows = Array.from({ length: BACKLOG }, (_, i) => ({
    id: newId(),
    organizationId: fx.orgId,
    endpointId: endpoints[i % ENDPOINTS]!,
    eventId: newId(),
    eventType: "story.published" as const,
    eventCreatedAt: new Date(dueSince),
    nextAttemptAt: new Date(dueSince + i),
  }));
  for (let i = 0; i < rows.length; i += 1_000) {
    await fx.db.insert(webhookDeliveries).values(rows.slice(i, i + 1_000));
  }
  await fx.db.execute(sql`analyze webhook_deliveries`);
  backlog = rows.map((row) => ({ id: row.id, endpointId: row.endpointId }));
  single = fx.database.url ? await openDatabase({ url: fx.database.url, max: 1 }) : fx.database;
}, 60_000);

afterAll(async () => {
  if (single !== fx.database) await single.close();
  await fx.close();
});

/** Rows and index entries of webhook_deliveries read so far (sequential and index scans). */
async function deliveryRowsRead(): Promise<number> {
  await single.db.execute(sql`select pg_stat_force_next_flush()`);
  const result = await single.db.execute(sql`
    select (t.seq_tup_read + coalesce(sum(i.idx_tup_read), 0))::int as n
    from pg_stat_user_tables as t
    left join pg_stat_user_indexes as i on i.relid = t.relid
    where t.relname = 'webhook_deliveries'
    group by t.relid, t.seq_tup_read`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
    n: number;
  }[];
  return rows[0]!.n;
}

const ids = (rows: { id: string }[]) => rows.map((row) => row.id).sort();

async function releaseAll(): Promise<void> {
  await fx.db
    .update(webhookDeliveries)
    .set({ lockedUntil: null })
    .where(eq(webhookDeliveries.status, "pending"));
}

describe("claiming due deliveries with a backlog", () => {
  test("takes each endpoint's first due rows up to its cap, reading about what it takes", async () => {
    // The five rows due first, one each of the first five endpoints.
    const first = await claimDueDeliveries(single.db, 5, limits);
    expect(ids(first)).toEqual(ids(backlog.slice(0, 5)));

    const before = await deliveryRowsRead();
    const rest = await claimDueDeliveries(single.db, 64, limits);
    const read = (await deliveryRowsRead()) - before;
    // Every endpoint now has its four first rows in flight, and nothing more.
    expect(ids([...first, ...rest])).toEqual(ids(backlog.slice(0, ENDPOINTS * 4)));
    // A claim that read the whole backlog would read 20,000 rows.
    expect(read).toBeLessThan(1_000);

    expect(await claimDueDeliveries(single.db, 64, limits)).toEqual([]);

    // One attempt recorded: its endpoint's next row, and only that, is claimed.
    const done = backlog[0]!;
    await fx.db
      .update(webhookDeliveries)
      .set({ status: "delivered", lockedUntil: null, nextAttemptAt: null })
      .where(eq(webhookDeliveries.id, done.id));
    const next = await claimDueDeliveries(single.db, 64, limits);
    expect(ids(next)).toEqual([backlog[ENDPOINTS * 4]!.id]);
    expect(next[0]!.endpointId).toBe(done.endpointId);
  });

  test("replicas claiming at once never share a row nor pass an endpoint's cap", async () => {
    await releaseAll();
    const claims = await Promise.all(
      Array.from({ length: 4 }, () => claimDueDeliveries(fx.db, 64, limits)),
    );
    const claimed = claims.flat();
    expect(new Set(ids(claimed)).size).toBe(claimed.length);
    const perEndpoint = new Map<string, number>();
    for (const row of claimed) {
      perEndpoint.set(row.endpointId, (perEndpoint.get(row.endpointId) ?? 0) + 1);
    }
    expect(Math.max(...perEndpoint.values())).toBeLessThanOrEqual(limits.perEndpoint);

    // What the database holds agrees: every claim is one of these, at most the cap per endpoint.
    const held = await fx.db
      .select({ endpointId: webhookDeliveries.endpointId, n: count() })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, "pending"), isNotNull(webhookDeliveries.lockedUntil)))
      .groupBy(webhookDeliveries.endpointId);
    expect(held.reduce((sum, row) => sum + row.n, 0)).toBe(claimed.length);
    expect(held.every((row) => row.n <= limits.perEndpoint)).toBe(true);
  });

  test("a delivery whose request is over frees its endpoint's place, but stays claimed", async () => {
    await releaseAll();
    const all = await claimAndOpenAttempts(single.db, 64, limits);
    // Four of each endpoint, each with its attempt opened.
    expect(all.rows).toHaveLength(ENDPOINTS * 4);
    expect(all.opened.size).toBe(ENDPOINTS * 4);
    expect((await claimAndOpenAttempts(single.db, 64, limits)).rows).toEqual([]);

    // Two requests of one endpoint are over, their answers not yet recorded (this worker knows).
    const endpoint = all.rows[0]!.endpointId;
    const answered = all.rows.filter((row) => row.endpointId === endpoint).slice(0, 2);
    const next = await claimAndOpenAttempts(
      single.db,
      64,
      limits,
      new Date(),
      answered.map((row) => row.id),
    );
    // That endpoint's next two rows, nothing of the others, and not the answered ones again.
    expect(next.rows).toHaveLength(2);
    expect(next.rows.every((row) => row.endpointId === endpoint)).toBe(true);
    expect(ids(next.rows).some((id) => answered.some((row) => row.id === id))).toBe(false);
    // Another replica, which does not know of those answers, counts them still: nothing more.
    expect((await claimAndOpenAttempts(fx.db, 64, limits)).rows).toEqual([]);
  });

  test("two claims of one worker at once, while answers free places, never pass a cap", async () => {
    await fx.db
      .update(webhookDeliveries)
      .set({ status: "delivered", lockedUntil: null, nextAttemptAt: null })
      .where(
        and(eq(webhookDeliveries.status, "pending"), isNotNull(webhookDeliveries.lockedUntil)),
      );
    const heldPerEndpoint = async () =>
      fx.db
        .select({ endpointId: webhookDeliveries.endpointId, n: count() })
        .from(webhookDeliveries)
        .where(
          and(eq(webhookDeliveries.status, "pending"), isNotNull(webhookDeliveries.lockedUntil)),
        )
        .groupBy(webhookDeliveries.endpointId);
    let claimedInAll = 0;
    for (let round = 0; round < 6; round++) {
      // Two claims at once, one started while the other runs (as the dispatcher does).
      const [a, b] = await Promise.all([
        claimAndOpenAttempts(fx.db, 64, limits),
        new Promise((resolve) => setTimeout(resolve, round)).then(() =>
          claimAndOpenAttempts(fx.db, 64, limits),
        ),
      ]);
      const claimed = [...a.rows, ...b.rows];
      claimedInAll += claimed.length;
      expect(new Set(ids(claimed)).size).toBe(claimed.length);
      const held = await heldPerEndpoint();
      expect(held.every((row) => row.n <= limits.perEndpoint)).toBe(true);
      // Half of each endpoint's held deliveries are answered and recorded: places free up.
      const pending = await fx.db
        .select({ id: webhookDeliveries.id, endpointId: webhookDeliveries.endpointId })
        .from(webhookDeliveries)
        .where(
          and(eq(webhookDeliveries.status, "pending"), isNotNull(webhookDeliveries.lockedUntil)),
        );
      const seen = new Map<string, number>();
      const done = pending.filter((row) => {
        const n = (seen.get(row.endpointId) ?? 0) + 1;
        seen.set(row.endpointId, n);
        return n <= 2;
      });
      await fx.db
        .update(webhookDeliveries)
        .set({ status: "delivered", lockedUntil: null, nextAttemptAt: null })
        .where(
          sql`${webhookDeliveries.id} = any(${`{${done.map((row) => row.id).join(",")}}`}::uuid[])`,
        );
    }
    // The places freed were taken again: the claims did their work, not only kept the cap.
    expect(claimedInAll).toBeGreaterThanOrEqual(ENDPOINTS * 4 + 5 * ENDPOINTS * 2);
  });
});
