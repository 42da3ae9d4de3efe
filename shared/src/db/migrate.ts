import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { Database } from "./index.ts";
import { connectionParameters, DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS } from "./timeouts.ts";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));

/** Any constant: the advisory lock that lets only one process migrate at a time. */
const MIGRATION_LOCK = 72_610_431;

/**
 * Applies pending migrations. Idempotent; safe when several processes start at once on
 * PostgreSQL (they queue on an advisory lock held on one dedicated connection).
 */
export async function migrateDatabase(
  database: Database,
  url?: string,
  options: { statementTimeoutMs?: number } = {},
): Promise<void> {
  if (database.kind === "pglite") {
    const client = (database.db as unknown as { $client: PGlite }).$client;
    await migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  if (!url) throw new Error("migrateDatabase needs the PostgreSQL URL");
  const statementMs = options.statementTimeoutMs ?? DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS;
  // Read here, not at start: the embedded mode never needs PostgreSQL's driver (see db/index.ts).
  const [{ default: postgres }, { drizzle: drizzlePostgres }, { migrate: migratePostgres }] =
    await Promise.all([
      import("postgres"),
      import("drizzle-orm/postgres-js"),
      import("drizzle-orm/postgres-js/migrator"),
    ]);
  const client = postgres(url, {
    max: 1,
    onnotice: () => {},
    // Waiting for another process's migration is bounded by the statement limit, not the lock's.
    connection: connectionParameters({ statementMs, lockMs: 0, idleInTransactionMs: statementMs }),
  });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migratePostgres(drizzlePostgres(client), { migrationsFolder: MIGRATIONS_FOLDER });
    await client`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
