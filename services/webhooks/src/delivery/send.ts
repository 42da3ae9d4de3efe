import { inSpan, SpanKind, SpanStatusCode, tracingOn } from "@newsroom/shared/tracing/index";
import { signedHeaders } from "../signing/signature.ts";
import { AnswerPrefix } from "./answer-prefix.ts";
import { type AttemptFailure, failureReason } from "./failure-reason.ts";
import { retryAfterOf } from "./retry-after.ts";
import { type CheckedTarget, checkTarget, type HostResolver } from "./target-guard.ts";

/** The user agent of every webhook request: the service's webhooks, version 1. */
export const USER_AGENT = "Armage-Webhooks/1";
/** A receiver has this long to answer with a 2xx. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** At most this much of a receiver's answer is read (its first 1 KiB kept, the rest thrown away). */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface AttemptResult {
  ok: boolean;
  /** The receiver's status code, when it answered. */
  statusCode: number | null;
  /** Short text for `last_error` (see `failureReason`: never an address); null on success. */
  error: string | null;
  /** A 429 or 503 receiver's `Retry-After`, capped at six hours from now. */
  retryAfter?: Date | null;
  /** From the start of the attempt (the target check) to the answer or the failure. */
  durationMs: number;
  /** The first 1 KiB of the answer's body as text; null without an answer or with an empty one. */
  responseBody: string | null;
}

export interface SendRequest {
  url: string;
  /** The endpoint's `whsec_...` secret; during a rotation the new one and the old one. */
  secret: string | readonly string[];
  /** The event id: `webhook-id`. */
  eventId: string;
  body: string;
  timeoutMs?: number;
  /** WEBHOOK_ALLOW_INSECURE_TARGETS: plain http and the address 127.0.0.1 (tests only). */
  allowInsecureTargets: boolean;
  /** How host names are resolved (the system resolver unless a test gives its own). */
  resolve?: HostResolver;
  /** The endpoint's own authentication headers (its bearer token, headers or OAuth token). */
  extraHeaders?: Record<string, string>;
}

/** The errors that mean nothing was sent: the next address of the name may be tried. */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ConnectionRefused", "EHOSTUNREACH", "ENETUNREACH"]);

export interface CheckedPost {
  url: string;
  /** Every header but `host`, which is the checked target's. */
  headers: (host: string) => Record<string, string>;
  body: string;
  timeoutMs: number;
  allowInsecureTargets: boolean;
  resolve?: HostResolver;
}

/** A POST that went out and got an answer, or why it did not. */
export type CheckedPostResult =
  | { ok: true; response: Response }
  | { ok: false; failure: Exclude<AttemptFailure, { kind: "answered" }> };

/**
 * A POST through the target guard (see `checkTarget`: a refused address sends nothing) to the
 * checked address itself, with the original `Host` and TLS server name, no proxy and no
 * redirect followed. The timeout covers the lookup too. Never throws. Webhook attempts and the
 * OAuth token requests of endpoints that use them go through here.
 */
export async function postToCheckedTarget(request: CheckedPost): Promise<CheckedPostResult> {
  if (!tracingOn()) return postChecked(request);
  // The receiver's host and the status only: never the URL's path or query, a header or the body.
  return inSpan(
    "POST",
    {
      kind: SpanKind.CLIENT,
      attributes: { "http.request.method": "POST", "server.address": hostOf(request.url) },
    },
    async (span) => {
      const result = await postChecked(request);
      if (result.ok) {
        span?.setAttribute("http.response.status_code", result.response.status);
        if (result.response.status >= 400) span?.setStatus({ code: SpanStatusCode.ERROR });
      } else {
        span?.setStatus({ code: SpanStatusCode.ERROR });
        span?.setAttribute("error.type", result.failure.kind);
      }
      return result;
    },
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "invalid";
  }
}

async function postChecked(request: CheckedPost): Promise<CheckedPostResult> {
  const timeoutMs = request.timeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  let target: CheckedTarget;
  try {
    const checked = await checkTarget(request.url, {
      allowInsecureTargets: request.allowInsecureTargets,
      resolve: request.resolve,
      signal,
    });
    if (!checked.ok) return { ok: false, failure: { kind: "refused", refusal: checked.refusal } };
    target = checked.target;
  } catch (error) {
    return { ok: false, failure: { kind: "thrown", error, timeoutMs } };
  }
  const headers = request.headers(target.host);
  for (const [index, url] of target.urls.entries()) {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: request.body,
        redirect: "manual",
        // The address is already checked: no proxy may pick another route for it.
        proxy: false,
        tls: target.serverName ? { serverName: target.serverName } : undefined,
        signal,
      });
      return { ok: true, response };
    } catch (error) {
      const code = String((error as { code?: unknown } | null)?.code ?? "");
      if (NOT_CONNECTED.has(code) && index < target.urls.length - 1) continue;
      return { ok: false, failure: { kind: "thrown", error, timeoutMs } };
    }
  }
  return {
    ok: false,
    failure: { kind: "thrown", error: { code: "ECONNREFUSED" }, timeoutMs },
  };
}

/**
 * One attempt: checks the target, signs now, POSTs it (`postToCheckedTarget`) and says how it
 * went. Success is a 2xx within the timeout; a redirect is never followed and counts as a
 * failure, as do other statuses, a timeout, a refused connection and a TLS error. The endpoint's
 * own headers (`extraHeaders`) go first: the signature's, `content-type`, `user-agent` and
 * `host` are always the service's. Never throws.
 */
export async function sendWebhook(request: SendRequest): Promise<AttemptResult> {
  const startedAt = performance.now();
  const timed = (result: Omit<AttemptResult, "durationMs">): AttemptResult => ({
    ...result,
    durationMs: Math.round(performance.now() - startedAt),
  });
  const posted = await postToCheckedTarget({
    url: request.url,
    headers: (host) => ({
      ...request.extraHeaders,
      host,
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...signedHeaders(request.secret, request.eventId, request.body),
    }),
    body: request.body,
    timeoutMs: request.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    allowInsecureTargets: request.allowInsecureTargets,
    resolve: request.resolve,
  });
  if (!posted.ok) return timed(failed(posted.failure));
  const response = posted.response;
  const responseBody = await readAnswer(response);
  const status = response.status;
  if (status >= 200 && status < 300) {
    return timed({ ok: true, statusCode: status, error: null, responseBody });
  }
  return timed({
    ok: false,
    responseBody,
    statusCode: status,
    error: failureReason({ kind: "answered", statusCode: status }),
    retryAfter: retryAfterOf(status, response.headers.get("retry-after"), new Date()),
  });
}

function failed(
  failure: Exclude<AttemptFailure, { kind: "answered" }>,
): Omit<AttemptResult, "durationMs"> {
  return { ok: false, statusCode: null, error: failureReason(failure), responseBody: null };
}

/**
 * Reads at most 64 KiB of the answer so the connection can be reused, and returns its first
 * 1 KiB as text for the attempt details (shown in the workspace, never in the client API).
 */
async function readAnswer(response: Response): Promise<string | null> {
  const reader = response.body?.getReader();
  if (!reader) return null;
  const prefix = new AnswerPrefix();
  let read = 0;
  try {
    while (read <= MAX_ANSWER_BYTES) {
      const chunk = await reader.read();
      if (chunk.done) return prefix.text();
      prefix.add(chunk.value);
      read += chunk.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The answer's body does not decide the attempt.
  }
  return prefix.text();
}
