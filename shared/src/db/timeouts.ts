/**
 * PostgreSQL session limits, in milliseconds, sent as connection parameters: a statement that runs
 * too long, a lock held elsewhere, or a transaction left open fails fast instead of holding a
 * request (and a pooled connection) until the client gives up. 0 means no limit.
 */
export interface DatabaseTimeouts {
  statementMs: number;
  lockMs: number;
  idleInTransactionMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  statementMs: 5_000,
  lockMs: 3_000,
  idleInTransactionMs: 10_000,
};

/** Migrations may rewrite large tables and queue behind another process's migration. */
export const DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS = 300_000;

/** The connection parameters postgres.js sends at connect. */
export function connectionParameters(timeouts: DatabaseTimeouts): Record<string, string> {
  return {
    statement_timeout: String(timeouts.statementMs),
    lock_timeout: String(timeouts.lockMs),
    idle_in_transaction_session_timeout: String(timeouts.idleInTransactionMs),
  };
}
