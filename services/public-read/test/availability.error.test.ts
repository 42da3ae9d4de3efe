import { describe, expect, test } from "bun:test";
import { readiness } from "@newsroom/shared/service";
import { requireService, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import postgres from "postgres";
import { createPublicReadService } from "../src/app.ts";
import {
  type Answer,
  client,
  createOrg,
  HOUSE_ORG,
  type Service,
  seedStories,
  testConfig,
} from "./support/world.ts";

/**
 * When the database stops under a running service, content routes answer 503 with
 * `Retry-After: 60` and `Cache-Control: no-store`, readiness fails, and once the database is
 * back the same process answers again.
 */
const SLOW = 60_000;

function expectUnavailable(answer: Answer, where: string): void {
  expect(answer.status, where).toBe(503);
  expect(answer.body.error.code).toBe("content_unavailable");
  expect(answer.body.error.type).toBe("unavailable");
  expect(answer.headers.get("retry-after")).toBe("60");
  expect(answer.headers.get("cache-control")).toBe("no-store");
  expect(answer.headers.get("etag")).toBeNull();
  expect(answer.body.error.request_id).toBe(answer.headers.get("x-request-id"));
}

const ROUTES = [
  "/v1/public/newsroom?type=video",
  "/v1/public/newsroom/a-story",
  "/v1/public/topics/world",
  "/v1/public/search/newsroom",
  "/v1/public/sitemap/newsroom",
  "/v1/public/sites/some-site",
  "/v1/public/sites/some-site/newsroom",
  "/v1/public/sites/some-site/newsroom/a-story",
  "/v1/public/sites/some-site/topics/world",
  "/v1/public/sites/some-site/sitemap",
  "/v1/public/hosts/news.example.com",
];

async function seeded(backend: "postgres" | "pglite") {
  const database = await testDatabase({ backend });
  const orgId = await createOrg(database.db, HOUSE_ORG, true);
  await seedStories(database.db, orgId, [
    { type: "insight", status: "published", slug: "a-story", topics: ["world"] },
  ]);
  return database;
}

async function allChecksPass(service: Service): Promise<boolean> {
  return (await readiness(service.readiness)()).ok;
}

describe("the embedded database closes under a running service", () => {
  test(
    "content routes answer 503 and readiness fails",
    async () => {
      const database = await seeded("pglite");
      const service = await createPublicReadService(
        testRuntime({ database, config: testConfig() }),
      );
      const get = client(service);
      const warm = await get("/v1/public/newsroom");
      expect(warm.status).toBe(200);
      expect(await allChecksPass(service)).toBe(true);

      await database.close();

      for (const path of ROUTES) expectUnavailable(await get(path), path);
      expect(await allChecksPass(service)).toBe(false);
      const ready = await get("/health/ready");
      expect(ready.status).toBe(503);
      expect(ready.headers.get("cache-control")).toBe("no-store");
      expect(ready.body.checks).toEqual({ database: "failing", read_path: "failing" });
      await service.stop();
    },
    SLOW,
  );
});

const DATABASE_URL = requireService("DATABASE_URL");

describe.skipIf(!DATABASE_URL)("PostgreSQL stops under a running service", () => {
  test(
    "503 while it refuses connections, answers again once it is back, no restart",
    async () => {
      const database = await seeded("postgres");
      const name = new URL(database.url!).pathname.slice(1);
      const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });
      const service = await createPublicReadService(
        testRuntime({ database, config: testConfig() }),
      );
      const get = client(service);
      try {
        expect((await get("/v1/public/newsroom")).status).toBe(200);

        // Stop the database: refuse new connections and end the service's connections.
        await admin.unsafe(`alter database ${name} allow_connections false`);
        await admin.unsafe(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
        );
        for (const path of ROUTES) expectUnavailable(await get(path), path);
        expect(await allChecksPass(service)).toBe(false);

        // Back: the same process answers without a restart.
        await admin.unsafe(`alter database ${name} allow_connections true`);
        const answer = await eventually(
          () => get("/v1/public/newsroom?type=insight"),
          (answer) => answer.status === 200,
          { message: "the newsroom to answer 200 again", timeoutMs: 15_000, everyMs: 200 },
        );
        expect(answer.body.items.map((i: { slug: string }) => i.slug)).toEqual(["a-story"]);
        expect(await allChecksPass(service)).toBe(true);
      } finally {
        await admin.unsafe(`alter database ${name} allow_connections true`).catch(() => {});
        await admin.end();
        await service.stop();
        await database.close();
      }
    },
    SLOW,
  );

  test(
    "a read slower than the read timeout answers 503 instead of hanging",
    async () => {
      const database = await seeded("postgres");
      const service = await createPublicReadService(
        testRuntime({ database, config: testConfig() }),
        { readTimeoutMs: 300 },
      );
      const get = client(service);
      const locker = postgres(database.url!, { max: 1, onnotice: () => {} });
      try {
        // Hold a lock that blocks every read of the stories table.
        const release = Promise.withResolvers<void>();
        const holding = Promise.withResolvers<void>();
        const lock = locker.begin(async (tx) => {
          await tx.unsafe("lock table stories in access exclusive mode");
          holding.resolve();
          await release.promise;
        });
        await holding.promise;
        const started = Date.now();
        expectUnavailable(await get("/v1/public/newsroom"), "locked index");
        expect(Date.now() - started).toBeLessThan(5_000);
        release.resolve();
        await lock;
        const answer = await get("/v1/public/newsroom");
        expect(answer.status).toBe(200);
      } finally {
        await locker.end();
        await service.stop();
        await database.close();
      }
    },
    SLOW,
  );
});
