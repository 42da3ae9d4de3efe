import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, inArray, sql } from "drizzle-orm";
import postgres from "postgres";
import type { Db, Queryable } from "../src/db/index.ts";
import {
  apiKeys,
  apiKeyUsage,
  approvalDecisions,
  assets,
  hostnames,
  organizationDataVersions,
  organizations,
  sites,
  stories,
  storyTopics,
  storyVersions,
  topics,
  webhookEndpoints,
} from "../src/db/schema.ts";
import { newId } from "../src/ids.ts";
import { requireService, type TestDatabase, testDatabase } from "../src/testing/database.ts";

/**
 * An organization's `data_version` (`organization_data_versions`) moves in the same transaction as every change that alters a
 * client API answer, whoever writes: the triggers of migration 0004, on each backend.
 */
function dataVersionSuite(backend: "pglite" | "postgres") {
  describe(`data_version on ${backend}`, () => {
    let database: TestDatabase;
    let db: Db;
    let orgA: string;
    let orgB: string;

    /** The sum of the organization's rows, as the client API reads it. */
    async function versionOf(id: string, on: Queryable = db): Promise<number> {
      const [row] = await on
        .select({ v: sql<number>`coalesce(sum(${organizationDataVersions.dataVersion}), 0)` })
        .from(organizationDataVersions)
        .where(eq(organizationDataVersions.organizationId, id));
      return Number(row?.v ?? 0);
    }

    /** What `change` did to each organization's version. */
    async function moves(change: () => Promise<unknown>): Promise<[number, number]> {
      const [a, b] = [await versionOf(orgA), await versionOf(orgB)];
      await change();
      return [(await versionOf(orgA)) - a, (await versionOf(orgB)) - b];
    }

    async function story(organizationId: string, slug: string): Promise<string> {
      const id = newId();
      await db.insert(stories).values({ id, organizationId, type: "insight", slug });
      return id;
    }

    beforeAll(async () => {
      database = await testDatabase({ backend });
      db = database.db;
      orgA = newId();
      orgB = newId();
      await db.insert(organizations).values([
        { id: orgA, slug: `a-${orgA}`, name: "A" },
        { id: orgB, slug: `b-${orgB}`, name: "B" },
      ]);
    });
    afterAll(async () => {
      await database.close();
    });

    test("a story, its versions, topics and decisions move only their organization's", async () => {
      let storyId = "";
      expect(
        await moves(async () => {
          storyId = await story(orgA, "one");
        }),
      ).toEqual([1, 0]);
      expect(
        await moves(() =>
          db.insert(storyVersions).values({ id: newId(), storyId, version: 1, title: "T" }),
        ),
      ).toEqual([1, 0]);
      expect(
        await moves(() =>
          db.update(stories).set({ currentVersion: 1 }).where(eq(stories.id, storyId)),
        ),
      ).toEqual([1, 0]);
      const topicId = newId();
      expect(
        await moves(() =>
          db.insert(topics).values({ id: topicId, organizationId: orgA, slug: "t", name: "T" }),
        ),
      ).toEqual([1, 0]);
      expect(await moves(() => db.insert(storyTopics).values({ storyId, topicId }))).toEqual([
        1, 0,
      ]);
      expect(
        await moves(() => db.update(topics).set({ slug: "t2" }).where(eq(topics.id, topicId))),
      ).toEqual([1, 0]);
      expect(
        await moves(() => db.delete(storyTopics).where(eq(storyTopics.storyId, storyId))),
      ).toEqual([1, 0]);
      expect(
        await moves(() =>
          db.insert(approvalDecisions).values({
            id: newId(),
            organizationId: orgA,
            storyId,
            version: 1,
            decision: "approved",
            actorType: "person",
            actorRole: "approver",
          }),
        ),
      ).toEqual([1, 0]);
      // Its decisions go with it (a cascade: one more statement).
      const [a, b] = await moves(() => db.delete(stories).where(eq(stories.id, storyId)));
      expect(a).toBeGreaterThan(0);
      expect(b).toBe(0);
    });

    test("the organization's own row, sites, hostnames and assets move it", async () => {
      expect(
        await moves(() =>
          db.update(organizations).set({ name: "A2" }).where(eq(organizations.id, orgB)),
        ),
      ).toEqual([0, 1]);
      expect(
        await moves(() =>
          db.update(organizations).set({ newsroomRunning: true }).where(eq(organizations.id, orgB)),
        ),
      ).toEqual([0, 1]);
      // Writing the same values changes no answer.
      expect(
        await moves(() =>
          db.update(organizations).set({ newsroomRunning: true }).where(eq(organizations.id, orgB)),
        ),
      ).toEqual([0, 0]);
      const siteId = newId();
      expect(
        await moves(() =>
          db.insert(sites).values({
            id: siteId,
            organizationId: orgB,
            slug: `s-${siteId}`,
            name: "S",
            publisher: "P",
          }),
        ),
      ).toEqual([0, 1]);
      expect(
        await moves(() =>
          db.insert(hostnames).values({
            id: newId(),
            organizationId: orgB,
            siteId,
            hostname: `h-${siteId}.example.org`,
          }),
        ),
      ).toEqual([0, 1]);
      const assetId = newId();
      expect(
        await moves(() =>
          db
            .insert(assets)
            .values({ id: assetId, organizationId: orgB, url: "https://cdn.example.com/a.png" }),
        ),
      ).toEqual([0, 1]);
      expect(
        await moves(() => db.update(assets).set({ cleared: true }).where(eq(assets.id, assetId))),
      ).toEqual([0, 1]);
    });

    test("an endpoint's failure count alone does not move it; its status does", async () => {
      const id = newId();
      expect(
        await moves(() =>
          db.insert(webhookEndpoints).values({
            id,
            organizationId: orgB,
            url: "https://hooks.example.com/x",
            events: ["story.published"],
            secretCiphertext: "sealed",
            secretHint: "abcd",
          }),
        ),
      ).toEqual([0, 1]);
      expect(
        await moves(() =>
          db
            .update(webhookEndpoints)
            .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1` })
            .where(eq(webhookEndpoints.id, id)),
        ),
      ).toEqual([0, 0]);
      expect(
        await moves(() =>
          db
            .update(webhookEndpoints)
            .set({ status: "disabled", disabledReason: "failing" })
            .where(eq(webhookEndpoints.id, id)),
        ),
      ).toEqual([0, 1]);
    });

    test("a key's use or revocation does not move it: keys are checked on their own row", async () => {
      const id = newId();
      await db.insert(apiKeys).values({
        id,
        organizationId: orgA,
        environment: "test",
        keyHash: `hash-${id}`,
        prefix: "armk_test_",
        lastFour: "abcd",
        scopes: ["stories:read"],
        expiresAt: new Date(Date.now() + 86_400_000),
      });
      expect(
        await moves(() =>
          db
            .insert(apiKeyUsage)
            .values({ keyId: id, organizationId: orgA, lastUsedAt: new Date() }),
        ),
      ).toEqual([0, 0]);
      expect(
        await moves(() =>
          db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, id)),
        ),
      ).toEqual([0, 0]);
    });

    test("a bulk write moves each organization once, not once per row", async () => {
      const rows = Array.from({ length: 500 }, (_, i) => ({
        id: newId(),
        organizationId: i % 2 === 0 ? orgA : orgB,
        type: "insight" as const,
        slug: `bulk-${i}`,
      }));
      expect(await moves(() => db.insert(stories).values(rows))).toEqual([1, 1]);
      expect(
        await moves(() =>
          db
            .update(stories)
            .set({ featured: true })
            .where(
              inArray(
                stories.id,
                rows.map((row) => row.id),
              ),
            ),
        ),
      ).toEqual([1, 1]);
    });

    test("the statements of one transaction move it once, when it commits", async () => {
      const id = newId();
      const [a, b] = [await versionOf(orgA), await versionOf(orgB)];
      await db.transaction(async (tx) => {
        await tx.insert(stories).values({ id, organizationId: orgA, type: "insight", slug: "tx" });
        await tx.update(stories).set({ featured: true }).where(eq(stories.id, id));
        await tx
          .insert(topics)
          .values({ id: newId(), organizationId: orgA, slug: "tx", name: "T" });
        // Deferred to the commit: not moved yet inside the transaction.
        expect(await versionOf(orgA, tx)).toBe(a);
      });
      expect([(await versionOf(orgA)) - a, (await versionOf(orgB)) - b]).toEqual([1, 0]);
    });

    if (backend === "postgres") {
      test("an uncommitted change does not hold up another transaction of its organization", async () => {
        const [first, second] = [
          await story(orgA, `held-${newId()}`),
          await story(orgA, `go-${newId()}`),
        ];
        const before = await versionOf(orgA);
        const other = postgres(database.url as string, { max: 1, onnotice: () => {} });
        try {
          await other.begin(async (held) => {
            await held`update stories set featured = true where id = ${first}`;
            // The first transaction is open: the second commits without waiting for it (a lock
            // on the organization's version taken at the first write would time out here).
            await db.transaction(async (tx) => {
              await tx.execute(sql`set local lock_timeout = '2s'`);
              await tx.update(stories).set({ featured: true }).where(eq(stories.id, second));
            });
            expect(await versionOf(orgA)).toBe(before + 1);
          });
        } finally {
          await other.end();
        }
        expect(await versionOf(orgA)).toBe(before + 2);
      });

      test("a committing transaction does not hold up another's commit of its organization", async () => {
        const [first, second] = [
          await story(orgA, `committing-${newId()}`),
          await story(orgA, `beside-${newId()}`),
        ];
        const before = await versionOf(orgA);
        // Two connections whose server processes move different rows of the organization.
        const connections: postgres.Sql[] = [];
        const shards = new Set<number>();
        try {
          while (connections.length < 2) {
            const connection = postgres(database.url as string, { max: 1, onnotice: () => {} });
            const [process] = await connection<{ shard: number }[]>`
              select pg_backend_pid() % 16 as shard`;
            const shard = process!.shard;
            if (shards.has(shard)) {
              await connection.end();
              continue;
            }
            shards.add(shard);
            connections.push(connection);
          }
          const [committing, beside] = connections as [postgres.Sql, postgres.Sql];
          await committing.begin(async (held) => {
            await held`update stories set featured = true where id = ${first}`;
            // Its commit's work done now, the organization's row of its process locked until
            // it ends: the point where a second commit of the organization used to wait.
            await held`set constraints all immediate`;
            await beside.begin(async (tx) => {
              await tx`set local lock_timeout = '2s'`;
              await tx`update stories set featured = true where id = ${second}`;
            });
            expect(await versionOf(orgA)).toBe(before + 1);
          });
        } finally {
          await Promise.all(connections.map((connection) => connection.end()));
        }
        expect(await versionOf(orgA)).toBe(before + 2);
      });
    }

    test("a rolled-back change leaves it where it was", async () => {
      const before = await versionOf(orgA);
      await db
        .transaction(async (tx) => {
          await tx
            .insert(stories)
            .values({ id: newId(), organizationId: orgA, type: "insight", slug: "rolled-back" });
          throw new Error("roll back");
        })
        .catch(() => undefined);
      expect(await versionOf(orgA)).toBe(before);
    });
  });
}

dataVersionSuite("pglite");
if (requireService("DATABASE_URL")) dataVersionSuite("postgres");
