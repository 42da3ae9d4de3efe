import postgres from "postgres";
import { type Database, openDatabase } from "../db/index.ts";
import { migrateDatabase } from "../db/migrate.ts";

/**
 * A fresh, migrated database for one test file: its own PostgreSQL database when DATABASE_URL
 * is set (dropped by `close`), otherwise an in-memory PGlite.
 */
export interface TestDatabase extends Database {
  /** The URL of this file's own PostgreSQL database, when on PostgreSQL. */
  url?: string;
}

export async function testDatabase(options: { backend?: "postgres" | "pglite" } = {}) {
  const baseUrl = process.env.DATABASE_URL;
  const backend = options.backend ?? (baseUrl ? "postgres" : "pglite");
  if (backend === "pglite") {
    const database = await openDatabase({ pgliteDir: "memory" });
    await migrateDatabase(database);
    return database as TestDatabase;
  }
  if (!baseUrl) throw new Error("DATABASE_URL is not set: no PostgreSQL for this test");
  const name = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = withDatabase(baseUrl, name);
  const database = await openDatabase({ url, max: 5 });
  await migrateDatabase(database, url);
  const close = database.close;
  return {
    ...database,
    url,
    close: async () => {
      await close();
      const cleanup = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  } satisfies TestDatabase;
}

export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * Whether the real services must be there: under CI a missing service fails the test run
 * instead of skipping it.
 */
export function requireService(
  name: "DATABASE_URL" | "NATS_URL" | "REDIS_URL",
): string | undefined {
  const value = process.env[name];
  if (!value && process.env.CI === "true") {
    throw new Error(`${name} is not set under CI: integration tests must run against it`);
  }
  return value;
}
