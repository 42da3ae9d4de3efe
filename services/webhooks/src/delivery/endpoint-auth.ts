import type { EndpointAuthIn } from "@newsroom/shared/webhook-endpoint-commands";
import { failureReason } from "./failure-reason.ts";
import { type AttemptResult, postToCheckedTarget, type SendRequest, sendWebhook } from "./send.ts";
import type { HostResolver } from "./target-guard.ts";

type OAuthClientCredentials = Extract<EndpointAuthIn, { type: "oauth2_client_credentials" }>;

/** What an endpoint's requests carry beyond the signature, or why none can be sent. */
export type AuthHeaders =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; error: string };

export interface OAuthTokenOptions {
  allowInsecureTargets: boolean;
  resolve?: HostResolver;
  /** How long the token endpoint has to answer. */
  timeoutMs: number;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
}

/** A token without `expires_in` is used for this long before a new one is asked for. */
const DEFAULT_LIFETIME_S = 3_600;

interface CachedToken {
  token: string;
  /** When to ask for a new one: before it expires, by a tenth of its lifetime (30 s at most). */
  refreshAt: number;
}

/**
 * OAuth 2.0 client-credentials tokens of the endpoints that use them (RFC 6749 section 4.4): asked
 * for once, reused by every attempt of this process, asked for again shortly before they expire
 * or after a receiver answered 401. One request at a time per endpoint. The token, the client
 * secret and the token endpoint's answer are never logged nor kept in `last_error`; a refusal
 * there is a failed attempt that says so.
 */
export class OAuthTokens {
  /** Token requests made (the tests count them). */
  requests = 0;
  private readonly cached = new Map<string, CachedToken>();
  private readonly asking = new Map<string, Promise<AuthHeaders>>();

  constructor(private readonly options: OAuthTokenOptions) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** The `authorization` header for this endpoint, from the cache or a new token. */
  async headers(endpointId: string, auth: OAuthClientCredentials): Promise<AuthHeaders> {
    const cached = this.cached.get(endpointId);
    if (cached && cached.refreshAt > this.now()) {
      return { ok: true, headers: { authorization: `Bearer ${cached.token}` } };
    }
    let asking = this.asking.get(endpointId);
    if (!asking) {
      asking = this.ask(endpointId, auth).finally(() => this.asking.delete(endpointId));
      this.asking.set(endpointId, asking);
    }
    return asking;
  }

  /** The receiver refused the token (401): the next attempt asks for a new one. */
  forget(endpointId: string): void {
    this.cached.delete(endpointId);
  }

  private async ask(endpointId: string, auth: OAuthClientCredentials): Promise<AuthHeaders> {
    this.requests += 1;
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (auth.scope) form.set("scope", auth.scope);
    const basic = Buffer.from(
      `${encodeURIComponent(auth.client_id)}:${encodeURIComponent(auth.client_secret)}`,
    ).toString("base64");
    const posted = await postToCheckedTarget({
      url: auth.token_url,
      headers: (host) => ({
        host,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
        authorization: `Basic ${basic}`,
      }),
      body: form.toString(),
      timeoutMs: this.options.timeoutMs,
      allowInsecureTargets: this.options.allowInsecureTargets,
      resolve: this.options.resolve,
    });
    if (!posted.ok) {
      return { ok: false, error: `OAuth token request failed: ${failureReason(posted.failure)}` };
    }
    const { response } = posted;
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel();
      return {
        ok: false,
        error: `OAuth token request refused: the token endpoint answered ${response.status}`,
      };
    }
    const answer = (await response.json().catch(() => null)) as {
      access_token?: unknown;
      expires_in?: unknown;
    } | null;
    if (typeof answer?.access_token !== "string" || answer.access_token === "") {
      return { ok: false, error: "OAuth token request failed: the answer has no access_token" };
    }
    const lifetimeS =
      typeof answer.expires_in === "number" && answer.expires_in > 0
        ? answer.expires_in
        : DEFAULT_LIFETIME_S;
    const margin = Math.min(30_000, (lifetimeS * 1000) / 10);
    this.cached.set(endpointId, {
      token: answer.access_token,
      refreshAt: this.now() + lifetimeS * 1000 - margin,
    });
    return { ok: true, headers: { authorization: `Bearer ${answer.access_token}` } };
  }
}

/** The headers an endpoint's `auth` adds to its requests (none without one). */
export function authHeaders(
  endpointId: string,
  auth: EndpointAuthIn | null,
  tokens: OAuthTokens,
): AuthHeaders | Promise<AuthHeaders> {
  if (!auth) return { ok: true, headers: {} };
  switch (auth.type) {
    case "bearer":
      return { ok: true, headers: { authorization: `Bearer ${auth.token}` } };
    case "headers":
      return { ok: true, headers: auth.headers };
    case "oauth2_client_credentials":
      return tokens.headers(endpointId, auth);
  }
}

/**
 * `sendWebhook` with the endpoint's authentication: a token that cannot be had is a failed
 * attempt that says why (nothing is sent), and a 401 from the receiver makes the next attempt
 * ask for a new OAuth token.
 */
export async function sendAuthenticated(
  endpointId: string,
  auth: EndpointAuthIn | null,
  tokens: OAuthTokens,
  request: Omit<SendRequest, "extraHeaders">,
): Promise<AttemptResult> {
  const startedAt = performance.now();
  const headers = await authHeaders(endpointId, auth, tokens);
  if (!headers.ok) {
    return {
      ok: false,
      statusCode: null,
      error: headers.error,
      durationMs: Math.round(performance.now() - startedAt),
      responseBody: null,
    };
  }
  const result = await sendWebhook({ ...request, extraHeaders: headers.headers });
  if (result.statusCode === 401 && auth?.type === "oauth2_client_credentials") {
    tokens.forget(endpointId);
  }
  return result;
}
