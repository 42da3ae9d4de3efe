import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import type { Database } from "./index.ts";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));

/** Any constant: the advisory lock that lets only one process migrate at a time. */
const MIGRATION_LOCK = 72_610_431;

/**
 * Applies pending migrations. Idempotent; safe when several processes start at once on
 * PostgreSQL (they queue on an advisory lock held on one dedicated connection).
 */
export async function migrateDatabase(database: Database, url?: string): Promise<void> {
  if (database.kind === "pglite") {
    const client = (database.db as unknown as { $client: PGlite }).$client;
    await migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  if (!url) throw new Error("migrateDatabase needs the PostgreSQL URL");
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migratePostgres(drizzlePostgres(client), { migrationsFolder: MIGRATIONS_FOLDER });
    await client`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
