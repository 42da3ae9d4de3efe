import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, openDatabase } from "@newsroom/shared/db/index";
import { webhookDeliveries, webhookEndpointLeases } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { and, count, eq, isNotNull, sql } from "drizzle-orm";
import {
  type ClaimRequest,
  claimAndOpenAttempts,
  giveBackUnsent,
  releaseLeases,
  renewLeases,
} from "../src/delivery/store.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

const ENDPOINTS = 10;
/** Due deliveries waiting: a receiver that was down for a while. */
const BACKLOG = 20_000;
/** A claim of worker `workerId`: four deliveries of an endpoint at most, leases of a minute. */
const claimant = (workerId = newId()): ClaimRequest => ({
  workerId,
  leaseMs: 60_000,
  perEndpoint: 4,
});
const PER_ENDPOINT = 4;

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

/** Every claim and lease given back. */
async function releaseAll(): Promise<void> {
  await fx.db
    .update(webhookDeliveries)
    .set({ lockedUntil: null })
    .where(eq(webhookDeliveries.status, "pending"));
  await fx.db.execute(sql`delete from webhook_endpoint_leases`);
}

const claim = (request: ClaimRequest, limit = 64, db = single.db) =>
  claimAndOpenAttempts(db, limit, request).then((claimed) => claimed.rows);

/** Claimed rows per endpoint, as the database holds them. */
async function heldPerEndpoint() {
  return fx.db
    .select({ endpointId: webhookDeliveries.endpointId, n: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, "pending"), isNotNull(webhookDeliveries.lockedUntil)))
    .groupBy(webhookDeliveries.endpointId);
}

describe("claiming due deliveries with a backlog", () => {
  test("takes whole endpoints' first due rows, the longest waiting first, reading about what it takes", async () => {
    const worker = claimant();
    // Five rows: the four first of the endpoint due first, then one of the next.
    const first = await claim(worker, 5);
    expect(ids(first)).toEqual(ids([0, 10, 20, 30, 1].map((i) => backlog[i]!)));

    const before = await deliveryRowsRead();
    const rest = await claim(worker);
    const read = (await deliveryRowsRead()) - before;
    // Four more rows of each endpoint: the first's next four, the second's next four after the
    // one it had, the others' first four.
    const held = (i: number) =>
      i % ENDPOINTS === 0
        ? i < ENDPOINTS * 8
        : i % ENDPOINTS === 1
          ? i < ENDPOINTS * 5
          : i < ENDPOINTS * 4;
    const expected = backlog.filter((_, i) => held(i));
    expect(ids([...first, ...rest])).toEqual(ids(expected));
    // A claim that read the whole backlog would read 20,000 rows.
    expect(read).toBeLessThan(1_000);

    // Another worker finds every endpoint leased: nothing.
    expect(await claim(claimant())).toEqual([]);

    // The same worker goes on with each endpoint's next rows while it holds its lease.
    const next = await claim(worker, 3);
    expect(ids(next)).toEqual(ids([42, 52, 62].map((i) => backlog[i]!)));
  });

  test("replicas claiming at once never share a row nor an endpoint", async () => {
    await releaseAll();
    const workers = Array.from({ length: 4 }, () => newId());
    const claims = await Promise.all(workers.map((id) => claim(claimant(id), 16, fx.db)));
    const claimed = claims.flat();
    expect(new Set(ids(claimed)).size).toBe(claimed.length);
    // Each endpoint's rows went to one replica only, at most four of them.
    const holder = new Map<string, number>();
    claims.forEach((rows, replica) => {
      for (const row of rows) {
        expect(holder.get(row.endpointId) ?? replica).toBe(replica);
        holder.set(row.endpointId, replica);
      }
    });
    const held = await heldPerEndpoint();
    expect(held.reduce((sum, row) => sum + row.n, 0)).toBe(claimed.length);
    expect(held.every((row) => row.n <= PER_ENDPOINT)).toBe(true);
    // What the leases say agrees: one holder per endpoint, the one that claimed its rows.
    const leases = (await fx.db.execute(
      sql`select endpoint_id, worker_id from webhook_endpoint_leases`,
    )) as unknown as
      | { endpoint_id: string; worker_id: string }[]
      | { rows: { endpoint_id: string; worker_id: string }[] };
    const leaseRows = Array.isArray(leases) ? leases : leases.rows;
    for (const [endpointId, replica] of holder) {
      expect(leaseRows.find((lease) => lease.endpoint_id === endpointId)?.worker_id).toBe(
        workers[replica],
      );
    }
  });

  test("a lease given back, or lapsed, is another replica's; one held is not", async () => {
    await releaseAll();
    const first = claimant();
    const taken = await claim(first, 4);
    const endpoint = taken[0]!.endpointId;
    expect(taken.every((row) => row.endpointId === endpoint)).toBe(true);
    const second = claimant();
    const others = await claim(second);
    expect(others.some((row) => row.endpointId === endpoint)).toBe(false);
    // The second found that endpoint's deliveries due and its lease taken: it wants a turn.
    const [lease] = await fx.db
      .select()
      .from(webhookEndpointLeases)
      .where(eq(webhookEndpointLeases.endpointId, endpoint));
    expect(lease).toMatchObject({ workerId: first.workerId, wantedBy: second.workerId });

    // The first worker's deliveries are answered, and it hands the lease to the second with a
    // claim (skipping that endpoint in it).
    const giving = await claimAndOpenAttempts(single.db, 64, {
      ...first,
      releaseEndpoints: [endpoint],
      skipEndpoints: [endpoint],
    });
    expect(giving.rows.some((row) => row.endpointId === endpoint)).toBe(false);
    const [handed] = await fx.db
      .select()
      .from(webhookEndpointLeases)
      .where(eq(webhookEndpointLeases.endpointId, endpoint));
    expect(handed).toMatchObject({ workerId: second.workerId, wantedBy: null });
    // The first may not take it back now.
    const back = await claim(first);
    expect(back.some((row) => row.endpointId === endpoint)).toBe(false);
    await fx.db
      .update(webhookDeliveries)
      .set({ status: "delivered", lockedUntil: null, nextAttemptAt: null })
      .where(sql`${webhookDeliveries.id} = any(${`{${ids(taken).join(",")}}`}::uuid[])`);
    const handedOn = await claim(second);
    expect(handedOn.some((row) => row.endpointId === endpoint)).toBe(true);

    // A dead worker's lease lapses with its claims: a minute on, the endpoint is the first's.
    const lapsed = await claimAndOpenAttempts(single.db, 64, first, new Date(Date.now() + 61_000));
    expect(lapsed.rows.some((row) => row.endpointId === endpoint)).toBe(true);
  });

  test("a renewal keeps a lease a later claim wrote, gives back an idle one, and tells of one lost", async () => {
    await releaseAll();
    const worker = claimant();
    const [row] = await claim(worker, 1);
    const endpoint = row!.endpointId;
    const leaseOf = async () =>
      (
        await fx.db
          .select()
          .from(webhookEndpointLeases)
          .where(eq(webhookEndpointLeases.endpointId, endpoint))
      )[0];
    const written = (await leaseOf())!.leasedUntil.getTime();
    // Holding nothing of it: a renewal that began before the claim leaves the lease alone...
    await renewLeases(fx.db, worker.workerId, [], {
      leaseMs: 60_000,
      giveBackBefore: new Date(written),
    });
    expect(await leaseOf()).toMatchObject({ workerId: worker.workerId });
    // ...one that began after gives it back.
    await renewLeases(fx.db, worker.workerId, [], {
      leaseMs: 60_000,
      giveBackBefore: new Date(written + 1),
    });
    expect(await leaseOf()).toBeUndefined();

    // Another worker took the lease while this one held a delivery (its renewals failed for a
    // lease's time): the next renewal says it is lost.
    const other = claimant();
    await claimAndOpenAttempts(single.db, 64, other, new Date(Date.now() + 61_000));
    const news = await renewLeases(fx.db, worker.workerId, [endpoint], {
      leaseMs: 60_000,
      giveBackBefore: new Date(),
    });
    expect(news.lost).toEqual([endpoint]);
    expect(news.notEnabled).toEqual([]);
  });

  test("giving back an unsent delivery another worker has claimed since leaves it alone", async () => {
    await releaseAll();
    const first = claimant();
    const [row] = await claim(first, 1);
    const opened = row!.attempts;
    // The first worker's claim lapses; another claims the delivery and opens the next attempt.
    await releaseAll();
    const [again] = await claim(claimant(), 1);
    expect(again).toMatchObject({ id: row!.id, attempts: opened + 1 });
    await giveBackUnsent(fx.db, [{ delivery: row!, attempt: opened }]);
    const [now] = await fx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, row!.id));
    expect(now!.attempts).toBe(opened + 1);
    expect(now!.lockedUntil).not.toBeNull();
    // Its own opening is given back: as if never claimed.
    await giveBackUnsent(fx.db, [{ delivery: again!, attempt: opened + 1 }]);
    const [after] = await fx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, row!.id));
    expect(after).toMatchObject({ attempts: opened, lockedUntil: null });
  });

  test("two claims of one worker at once never take one row twice nor another's endpoint", async () => {
    await releaseAll();
    await releaseLeases(fx.db, newId());
    const [a, b] = [claimant(), claimant()];
    let claimedInAll = 0;
    for (let round = 0; round < 6; round++) {
      // Two claims of each worker at once, one started while the other runs (as the dispatcher does).
      const claims = await Promise.all(
        [a, a, b, b].map((request, i) =>
          new Promise((resolve) => setTimeout(resolve, i % 2 === 0 ? 0 : round)).then(() =>
            claim(request, 8, fx.db),
          ),
        ),
      );
      const ofA = [...claims[0]!, ...claims[1]!];
      const ofB = [...claims[2]!, ...claims[3]!];
      const all = [...ofA, ...ofB];
      claimedInAll += all.length;
      expect(new Set(ids(all)).size).toBe(all.length);
      const endpointsOfA = new Set(ofA.map((row) => row.endpointId));
      expect(ofB.some((row) => endpointsOfA.has(row.endpointId))).toBe(false);
      // Half of each endpoint's held deliveries are answered and recorded.
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
    // The claims did their work, not only kept the rules.
    expect(claimedInAll).toBeGreaterThanOrEqual(6 * 8);
  });
});
