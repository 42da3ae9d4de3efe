import { describeRange, type TargetRefusal } from "./target-guard.ts";

/** How an attempt failed, before it is put into words. */
export type AttemptFailure =
  /** The target guard refused the URL: nothing was sent. */
  | { kind: "refused"; refusal: TargetRefusal }
  /** The receiver answered with a status that is not a 2xx. */
  | { kind: "answered"; statusCode: number }
  /** The lookup, connection, TLS or request failed, or the time ran out. */
  | { kind: "thrown"; error: unknown; timeoutMs: number };

/** A code from a system or TLS error: shown only when it has this shape (never free text). */
const ERROR_CODE = /^[A-Za-z][A-Za-z0-9_]{0,47}$/;

const CONNECTION_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ECONNRESET: "connection reset",
  ConnectionClosed: "connection reset",
  EPIPE: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  ENOTFOUND: "host name not found",
  EAI_NONAME: "host name not found",
  DNSError: "host name not found",
};

/**
 * The `last_error` of an attempt: a short reason the endpoint's owner can act on, built only
 * from fixed words, status codes, error codes and the configured timeout. Never an address,
 * a port or an error's own message (those carry what the service's resolver and network see,
 * such as `connect ECONNREFUSED 10.0.0.5:443`). Every failed attempt goes through here.
 */
export function failureReason(failure: AttemptFailure): string {
  switch (failure.kind) {
    case "refused":
      return refusalReason(failure.refusal);
    case "answered": {
      const status = failure.statusCode;
      return status >= 300 && status < 400
        ? `redirect (${status}) not followed`
        : `receiver answered ${status}`;
    }
    case "thrown":
      return thrownReason(failure.error, failure.timeoutMs);
  }
}

function refusalReason(refusal: TargetRefusal): string {
  switch (refusal.reason) {
    case "not-a-url":
      return "refused: not a URL";
    case "scheme":
      return /^[a-z][a-z0-9+.-]{0,19}$/.test(refusal.scheme)
        ? `refused: ${refusal.scheme} URLs are not sent`
        : "refused: only https URLs are sent";
    case "credentials":
      return "refused: credentials in the URL";
    case "https-required":
      return "refused: the URL must use https";
    case "host-not-found":
      return "host name not found";
    case "lookup-failed":
      return ERROR_CODE.test(refusal.code)
        ? `host name lookup failed (${refusal.code})`
        : "host name lookup failed";
    case "address":
      return refusal.resolved
        ? `refused: the target resolves to ${describeRange(refusal.range)}`
        : `refused: the target is ${describeRange(refusal.range)}`;
  }
}

function thrownReason(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return `timeout: no answer within ${formatSeconds(timeoutMs)}`;
  }
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  const known = CONNECTION_ERRORS[code];
  if (known) return known;
  if (!ERROR_CODE.test(code)) return "request failed";
  if (/CERT|TLS|SSL|EPROTO/i.test(code)) return `TLS error (${code})`;
  return `request failed (${code})`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
