import type { Db } from "@newsroom/shared/db/index";
import { newId } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import type { EndpointTestOutcome } from "@newsroom/shared/webhook-endpoint-commands";
import { openEndpointAuth } from "../endpoints/auth.ts";
import { signingSecrets } from "../signing/endpoint-secrets.ts";
import { OAuthTokens, sendAuthenticated } from "./endpoint-auth.ts";
import { testEventBody } from "./payload.ts";
import { ATTEMPT_TIMEOUT_MS } from "./send.ts";
import type { EndpointRow } from "./store.ts";
import type { HostResolver } from "./target-guard.ts";

export interface TestEventDeps {
  db: Db;
  secretsKey: Buffer;
  /** How long the receiver has to answer (the attempts' 10 s unless a test says otherwise). */
  timeoutMs?: number;
  allowInsecureTargets: boolean;
  resolve?: HostResolver;
  /** The OAuth tokens of endpoints that use them, shared with the delivery worker. */
  tokens?: OAuthTokens;
}

/**
 * Sends `webhook.test` once, now, to this endpoint only (enabled or not: testing is how an
 * owner checks a receiver before turning it back on), and answers how the receiver took it.
 * Never recorded as a delivery, never retried, and it does not count towards disabling the
 * endpoint. Signed like every delivery, through the same target guard.
 */
export async function sendTestEvent(
  deps: TestEventDeps,
  endpoint: Pick<
    EndpointRow,
    | "id"
    | "url"
    | "secretCiphertext"
    | "previousSecretCiphertext"
    | "previousSecretExpiresAt"
    | "authCiphertext"
  >,
): Promise<EndpointTestOutcome> {
  const now = new Date();
  const eventId = newId();
  const result = await sendAuthenticated(
    endpoint.id,
    openEndpointAuth(endpoint, deps.secretsKey),
    deps.tokens ??
      new OAuthTokens({
        allowInsecureTargets: deps.allowInsecureTargets,
        resolve: deps.resolve,
        timeoutMs: deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
      }),
    {
      url: endpoint.url,
      secret: signingSecrets(endpoint, deps.secretsKey, now),
      eventId,
      body: testEventBody({ id: eventId, createdAt: now, endpointId: endpoint.id }),
      timeoutMs: deps.timeoutMs,
      allowInsecureTargets: deps.allowInsecureTargets,
      resolve: deps.resolve,
    },
  );
  log.info("webhook test event sent", {
    endpoint_id: endpoint.id,
    ok: result.ok,
    status_code: result.statusCode,
    error: result.error,
    duration_ms: result.durationMs,
  });
  return {
    event_id: eventId,
    status: result.ok ? "accepted" : "failed",
    status_code: result.statusCode,
    duration_ms: result.durationMs,
    error: result.error,
  };
}
