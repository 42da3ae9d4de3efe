/**
 * PostgreSQL session limits, in milliseconds, sent as connection parameters: a statement that runs
 * too long, a lock held elsewhere, or a transaction left open fails fast instead of holding a
 * request (and a pooled connection) until the client gives up. 0 means no limit.
 */
export interface DatabaseTimeouts {
  statementMs: number;
  lockMs: number;
  idleInTransactionMs: number;
  /**
   * How long opening a connection may take. A request that needs one waits at most this long
   * before its 503, so it is short: a database that answers opens a connection in milliseconds.
   */
  connectMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  statementMs: 5_000,
  lockMs: 3_000,
  idleInTransactionMs: 10_000,
  connectMs: 1_000,
};

/**
 * Seconds between a failed connection and the next try, by the number of failures in a row:
 * 50 ms doubling up to a quarter of a second, so a database that comes back is in use again
 * within a second (postgres.js's own backoff grows to 20 s and kept requests waiting that long).
 */
export function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.05 * 2 ** Math.max(failures - 1, 0), 0.25);
}

/** Migrations may rewrite large tables and queue behind another process's migration. */
export const DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS = 300_000;

/** The connection parameters postgres.js sends at connect. */
export function connectionParameters(
  timeouts: Omit<DatabaseTimeouts, "connectMs">,
): Record<string, string> {
  return {
    statement_timeout: String(timeouts.statementMs),
    lock_timeout: String(timeouts.lockMs),
    idle_in_transaction_session_timeout: String(timeouts.idleInTransactionMs),
  };
}
