import { type EventBus, openBus } from "./bus/index.ts";
import { type Config, databaseTimeouts } from "./config.ts";
import type { RuntimeConfig } from "./config-variables.ts";
import { type Database, openDatabase } from "./db/index.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { openRateLimitStore, type RateLimitStore } from "./rate-limit.ts";

/**
 * The infrastructure a process holds: database, bus and rate-limit store, chosen by config.
 * `config` is what the process loaded: its service's variables, or every variable (embedded).
 */
export interface Runtime<C extends RuntimeConfig = Config> {
  config: C;
  database: Database;
  bus: EventBus;
  rateLimits: RateLimitStore;
  close(): Promise<void>;
}

export async function openRuntime<C extends RuntimeConfig>(
  config: C,
  options: { migrate?: boolean } = {},
) {
  const database = await openDatabase({
    url: config.DATABASE_URL,
    pgliteDir: config.PGLITE_DIR,
    timeouts: databaseTimeouts(config),
  });
  if (options.migrate ?? true) {
    await migrateDatabase(database, config.DATABASE_URL, {
      statementTimeoutMs: config.DATABASE_MIGRATION_STATEMENT_TIMEOUT_MS,
    });
  }
  const bus = await openBus(config.NATS_URL, {
    stream: config.NATS_STREAM,
    subjectPrefix: config.NATS_SUBJECT_PREFIX,
  });
  const rateLimits = openRateLimitStore(config.REDIS_URL, config.RATE_LIMIT_PREFIX);
  const runtime: Runtime<C> = {
    config,
    database,
    bus,
    rateLimits,
    close: async () => {
      await bus.close();
      await rateLimits.close();
      await database.close();
    },
  };
  return runtime;
}
