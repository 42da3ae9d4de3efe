import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { databaseTimeouts, loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/index.ts";
import { requireService, testDatabase } from "../src/testing/database.ts";

async function settings(db: Awaited<ReturnType<typeof openDatabase>>["db"]) {
  // On postgres.js (the only driver with these limits) the result is the array of rows.
  const rows = (await db.execute(sql`
    select name, setting from pg_settings
    where name in ('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout')`)) as unknown as {
    name: string;
    setting: string;
  }[];
  return Object.fromEntries(rows.map((row) => [row.name, row.setting]));
}

describe("PostgreSQL session limits", () => {
  test("default to 5 s per statement, 3 s per lock, 10 s idle in a transaction", () => {
    expect(databaseTimeouts(loadConfig({}))).toEqual({
      statementMs: 5_000,
      lockMs: 3_000,
      idleInTransactionMs: 10_000,
      connectMs: 1_000,
    });
  });

  const url = requireService("DATABASE_URL");
  test.skipIf(!url)("every pooled connection carries them; the variables change them", async () => {
    const database = await testDatabase({ backend: "postgres" });
    const configured = await openDatabase({
      url: database.url,
      timeouts: databaseTimeouts(
        loadConfig({
          DATABASE_STATEMENT_TIMEOUT_MS: "7000",
          DATABASE_LOCK_TIMEOUT_MS: "1500",
          DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "0",
        }),
      ),
    });
    try {
      expect(await settings(database.db)).toEqual({
        statement_timeout: "5000",
        lock_timeout: "3000",
        idle_in_transaction_session_timeout: "10000",
      });
      expect(await settings(configured.db)).toEqual({
        statement_timeout: "7000",
        lock_timeout: "1500",
        idle_in_transaction_session_timeout: "0",
      });
    } finally {
      await configured.close();
      await database.close();
    }
  });
});
