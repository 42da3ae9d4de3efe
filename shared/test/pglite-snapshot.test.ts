import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../src/db/index.ts";
import { MIGRATIONS_FOLDER, migrateDatabase } from "../src/db/migrate.ts";
import {
  buildSnapshot,
  fillFromSnapshot,
  migrationsHash,
  snapshotFolder,
} from "../src/db/pglite-snapshot.ts";
import { organizations } from "../src/db/schema.ts";

/**
 * The migrated PGlite folder a new folder is copied from: it holds exactly the migrations of
 * this checkout, and one made for other migrations is never copied.
 */
const scratch = mkdtempSync(join(tmpdir(), "newsroom-snapshot-"));
const root = join(scratch, "cache");
let snapshot = "";
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeAll(async () => {
  // One left by older migrations: making the current one removes it.
  mkdirSync(join(root, "pglite-0.0.0-0000000000000000"), { recursive: true });
  snapshot = await buildSnapshot(root);
}, 120_000);

function journalCount(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8"));
  return (journal.entries as unknown[]).length;
}

describe("PGlite snapshot", () => {
  test("is named by the PGlite version and the migrations, and replaces an older one", () => {
    expect(snapshot).toBe(snapshotFolder(root));
    expect(basename(snapshot)).toMatch(/^pglite-\d+\.\d+\.\d+-[0-9a-f]{16}$/);
    expect(basename(snapshot).endsWith(migrationsHash())).toBe(true);
    expect(existsSync(join(root, "pglite-0.0.0-0000000000000000"))).toBe(false);
    expect(existsSync(join(snapshot, "postmaster.pid"))).toBe(false);
  });

  test("a changed or added migration gives another name, so a stale snapshot is not copied", () => {
    const copy = join(scratch, "migrations");
    cpSync(MIGRATIONS_FOLDER, copy, { recursive: true });
    expect(migrationsHash(copy)).toBe(migrationsHash());
    writeFileSync(join(copy, "9999_more.sql"), "select 1;");
    expect(migrationsHash(copy)).not.toBe(migrationsHash());
    rmSync(join(copy, "9999_more.sql"));
    const first = readdirSync(copy)
      .filter((name) => name.endsWith(".sql"))
      .sort()[0]!;
    writeFileSync(join(copy, first), `${readFileSync(join(copy, first), "utf8")}\n-- changed\n`);
    expect(migrationsHash(copy)).not.toBe(migrationsHash());
  });

  test("a new folder copied from it holds every migration and no rows; migrating adds none", async () => {
    const dir = join(scratch, "pg-new");
    mkdirSync(dir);
    expect(await fillFromSnapshot(dir, root)).toBe(true);
    const database = await openDatabase({ pgliteDir: dir });
    try {
      const count = async () => {
        const result = await database.db.execute(
          sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
        );
        return (result as unknown as { rows: { n: number }[] }).rows[0]!.n;
      };
      expect(await count()).toBe(journalCount());
      await migrateDatabase(database);
      expect(await count()).toBe(journalCount());
      expect(await database.db.select().from(organizations)).toEqual([]);
      // Opened with the small buffer pool (its memory is resident), initdb's settings kept.
      const settings = await database.db.execute(
        sql`select current_setting('shared_buffers') as buffers, current_setting('TimeZone') as zone`,
      );
      expect((settings as unknown as { rows: unknown[] }).rows[0]).toEqual({
        buffers: "8MB",
        zone: "UTC",
      });
    } finally {
      await database.close();
    }
  }, 60_000);

  test("a folder that holds anything is left as it is", async () => {
    const dir = join(scratch, "pg-used");
    mkdirSync(dir);
    writeFileSync(join(dir, "PG_VERSION"), "17\n");
    expect(await fillFromSnapshot(dir, root)).toBe(false);
    expect(existsSync(join(dir, "base"))).toBe(false);
  });
});
