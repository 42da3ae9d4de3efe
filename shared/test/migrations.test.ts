import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase } from "../src/db/index.ts";
import { migrateDatabase } from "../src/db/migrate.ts";
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
