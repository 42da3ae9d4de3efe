import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { lockFolder } from "./folder-lock.ts";
import { fillFromSnapshot } from "./pglite-snapshot.ts";
import * as schema from "./schema.ts";
import {
  connectionParameters,
  type DatabaseTimeouts,
  DEFAULT_DATABASE_TIMEOUTS,
  reconnectDelaySeconds,
} from "./timeouts.ts";

export { schema };

export type Schema = typeof schema;
/** A drizzle database, whichever driver is under it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either a database or a transaction: store functions accept both. */
export type Queryable = Db | Tx;

export interface Database {
  db: Db;
  kind: "postgres" | "pglite";
  /** Runs `select 1`; throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; without it PGlite is used. */
  url?: string;
  /** PGlite data directory, or `memory`. */
  pgliteDir?: string;
  /** Pool size for PostgreSQL. */
  max?: number;
  /** PostgreSQL session limits; PGlite, one in-process connection, has none. */
  timeouts?: DatabaseTimeouts;
}

/**
 * PGlite's start with PostgreSQL's `shared_buffers` at 8 MB instead of initdb's 128 MB: PGlite
 * keeps them in its WebAssembly memory, resident from the start, so 128 MB costs about 115 MiB
 * of the process's memory (measured: 300 MiB for PGlite open and one query, 186 MiB with 16 MB;
 * 8 MB takes the first start's peak from about 251 to 237 MiB). One local connection on a small
 * database reads little, and the read caches answer repeated reads; what is not buffered is a
 * read of a file the operating system already caches.
 */
const PGLITE_START = [...PGlite.defaultStartParams, "-c", "shared_buffers=8MB"];

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    // PostgreSQL's driver is read only when there is a URL: the embedded mode, on PGlite, starts
    // about 4 MiB lighter without it.
    const [{ default: postgres }, { drizzle: drizzlePostgres }] = await Promise.all([
      import("postgres"),
      import("drizzle-orm/postgres-js"),
    ]);
    const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
    const client = postgres(options.url, {
      max: options.max ?? 10,
      onnotice: () => {},
      connect_timeout: timeouts.connectMs / 1000,
      backoff: reconnectDelaySeconds,
      idle_timeout: 30,
      connection: connectionParameters(timeouts),
    });
    const db = drizzlePostgres(client, { schema }) as unknown as Db;
    return {
      db,
      kind: "postgres",
      ping: async () => {
        await client`select 1`;
      },
      close: () => client.end({ timeout: 5 }),
    };
  }
  const dir = options.pgliteDir ?? "memory";
  if (dir !== "memory") mkdirSync(dir, { recursive: true });
  const lock = dir === "memory" ? null : lockFolder(dir);
  let client: PGlite;
  try {
    // A new folder starts as a copy of the migrated snapshot, not with PGlite's `initdb`.
    if (dir !== "memory") await fillFromSnapshot(dir);
    const options = { startParams: PGLITE_START };
    client = dir === "memory" ? new PGlite(options) : new PGlite(dir, options);
    await client.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    ping: async () => {
      await client.query("select 1");
    },
    close: async () => {
      await client.close();
      lock?.release();
    },
  };
}
