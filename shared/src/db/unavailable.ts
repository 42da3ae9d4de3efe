/**
 * Whether an error means the database cannot answer now (unreachable, restarting, too slow, or a
 * lock held elsewhere) rather than a fault in the query: callers answer 503 with Retry-After.
 */

/** SQLSTATE codes of a database that is temporarily unable to answer. */
const UNAVAILABLE_SQLSTATES = new Set([
  "57014", // query_canceled: statement_timeout
  "55P03", // lock_not_available: lock_timeout
  "25P03", // idle_in_transaction_session_timeout
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or shutting down
  "55000", // object_not_in_prerequisite_state: "database is not currently accepting connections"
]);

/** Connection failures: postgres.js's own codes, and the system's (Node's and Bun's spellings). */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ConnectionRefused",
  "ConnectionClosed",
]);

/** What PGlite throws once it has been closed. */
const PGLITE_CLOSED = "PGlite is closed";

export function isDatabaseUnavailable(error: unknown): boolean {
  // drizzle wraps the driver's error in its own ("Failed query: ..."), with the original as cause.
  for (let cause = error, depth = 0; cause && depth < 5; depth++) {
    if (typeof cause !== "object") return false;
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === "string") {
      if (UNAVAILABLE_SQLSTATES.has(code) || CONNECTION_CODES.has(code)) return true;
      // Class 08: connection exception; class 53: insufficient resources (connections, memory).
      if (/^(?:08|53)[0-9A-Z]{3}$/.test(code)) return true;
    }
    if (message === PGLITE_CLOSED) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
