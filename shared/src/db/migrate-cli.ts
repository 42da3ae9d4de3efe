import { databaseTimeouts, loadConfigOrExit } from "../config.ts";
import { openDatabase } from "./index.ts";
import { migrateDatabase } from "./migrate.ts";

const config = loadConfigOrExit();
const database = await openDatabase({
  url: config.DATABASE_URL,
  pgliteDir: config.PGLITE_DIR,
  timeouts: databaseTimeouts(config),
});
await migrateDatabase(database, config.DATABASE_URL, {
  statementTimeoutMs: config.DATABASE_MIGRATION_STATEMENT_TIMEOUT_MS,
});
await database.close();
console.log(`migrated (${database.kind})`);
