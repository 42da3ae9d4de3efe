import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { openDatabase } from "../src/db/index.ts";
import { MIGRATIONS_FOLDER, migrateDatabase } from "../src/db/migrate.ts";
import { organizations } from "../src/db/schema.ts";
import { requireService, testDatabase } from "../src/testing/database.ts";

describe("migrations", () => {
  test("apply twice on PGlite without error and leave a working schema", async () => {
    const database = await openDatabase({ pgliteDir: "memory" });
    await migrateDatabase(database);
    await migrateDatabase(database);
    const rows = await database.db.select().from(organizations);
    expect(rows).toEqual([]);
    await database.close();
  });

  test("the audit log's page order (organization, created_at, id) has its index", async () => {
    const database = await openDatabase({ pgliteDir: "memory" });
    await migrateDatabase(database);
    const result = await database.db.execute(
      sql`select indexdef from pg_indexes where tablename = 'audit_events'`,
    );
    const definitions = (result as unknown as { rows: { indexdef: string }[] }).rows.map(
      (row) => row.indexdef,
    );
    expect(definitions).toContainEqual(
      expect.stringContaining("(organization_id, created_at, id)"),
    );
    await database.close();
  });

  test("moving key use to api_key_usage carries each used key's last use over", async () => {
    // The migrations before that one, in a copy of the folder whose journal stops there.
    const before = mkdtempSync(join(tmpdir(), "migrations-"));
    cpSync(MIGRATIONS_FOLDER, before, { recursive: true });
    const journalPath = join(before, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8"));
    const at = journal.entries.findIndex((entry: { tag: string }) =>
      entry.tag.endsWith("_api_key_usage"),
    );
    expect(at).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, at);
    writeFileSync(journalPath, JSON.stringify(journal));
    const client = new PGlite();
    const db = drizzle(client);
    try {
      await migrate(db, { migrationsFolder: before });
      await client.exec(`
        insert into organizations (id, slug, name)
          values ('00000000-0000-4000-8000-000000000001', 'org', 'Org');
        insert into api_keys
          (id, organization_id, environment, key_hash, prefix, last_four, scopes, expires_at, last_used_at)
          values
          ('00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-000000000001', 'test',
           'hash-a', 'armk_test_', 'aaaa', '[]', now() + interval '1 day', '2030-01-02T03:04:05Z'),
          ('00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-000000000001', 'test',
           'hash-b', 'armk_test_', 'bbbb', '[]', now() + interval '1 day', null);`);
      await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
      const moved = await client.query<{ key_id: string; organization_id: string; at: string }>(
        `select key_id, organization_id, to_char(last_used_at at time zone 'UTC',
           'YYYY-MM-DD"T"HH24:MI:SS"Z"') as at from api_key_usage`,
      );
      expect(moved.rows).toEqual([
        {
          key_id: "00000000-0000-4000-8000-00000000000a",
          organization_id: "00000000-0000-4000-8000-000000000001",
          at: "2030-01-02T03:04:05Z",
        },
      ]);
    } finally {
      await client.close();
      rmSync(before, { recursive: true, force: true });
    }
  });

  const url = requireService("DATABASE_URL");
  test.skipIf(!url)("apply twice on PostgreSQL, also from processes starting at once", async () => {
    const database = await testDatabase({ backend: "postgres" });
    try {
      await migrateDatabase(database, database.url);
      // Two more at once: the advisory lock queues them instead of failing.
      await Promise.all([
        migrateDatabase(database, database.url),
        migrateDatabase(database, database.url),
      ]);
      const rows = await database.db.select().from(organizations);
      expect(rows).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
