import type { Db } from "@newsroom/shared/db/index";
import { EVENT, type WebhookTestEvent, type WebhookTestResultEvent } from "@newsroom/shared/events";
import { isUuid } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { signingSecrets } from "../signing/endpoint-secrets.ts";
import { testEventBody } from "./payload.ts";
import { type AttemptResult, sendWebhook } from "./send.ts";
import { findEndpoint } from "./store.ts";
import type { HostResolver } from "./target-guard.ts";

/** How a test went: the attempt's result and how long it took. */
export type TestEventResult = AttemptResult & { durationMs: number };

/** Whether a bus message is a `webhook.test` event naming an endpoint. */
export function isWellFormedTestEvent(event: unknown): event is WebhookTestEvent {
  const e = event as Partial<WebhookTestEvent> | null;
  return (
    e?.type === "webhook.test" &&
    typeof e.id === "string" &&
    e.id.length > 0 &&
    typeof e.created_at === "string" &&
    typeof e.data?.organization_id === "string" &&
    isUuid(e.data.organization_id) &&
    typeof e.data.endpoint_id === "string" &&
    isUuid(e.data.endpoint_id)
  );
}

/**
 * Sends `webhook.test` once, to the tested endpoint only (enabled or not: testing is how an
 * owner checks a receiver before turning it back on). Never recorded as a delivery, never
 * retried, and it does not count towards disabling the endpoint. Null when there is no such
 * endpoint in the event's organization.
 */
export async function sendTestEvent(
  deps: {
    db: Db;
    secretsKey: Buffer;
    timeoutMs: number;
    allowInsecureTargets: boolean;
    resolve?: HostResolver;
  },
  event: WebhookTestEvent,
): Promise<TestEventResult | null> {
  const endpoint = await findEndpoint(deps.db, event.data.organization_id, event.data.endpoint_id);
  if (!endpoint) return null;
  const started = performance.now();
  const result = await sendWebhook({
    url: endpoint.url,
    secret: signingSecrets(endpoint, deps.secretsKey, new Date()),
    eventId: event.id,
    body: testEventBody(event),
    timeoutMs: deps.timeoutMs,
    allowInsecureTargets: deps.allowInsecureTargets,
    resolve: deps.resolve,
  });
  const durationMs = Math.round(performance.now() - started);
  log.info("webhook test event sent", {
    endpoint_id: endpoint.id,
    ok: result.ok,
    status_code: result.statusCode,
    error: result.error,
    duration_ms: durationMs,
  });
  return { ...result, durationMs };
}

/** The `webhook.test_result` event telling the workspace how the test went. */
export function testResultEvent(
  event: WebhookTestEvent,
  result: TestEventResult,
): WebhookTestResultEvent {
  return {
    id: crypto.randomUUID(),
    type: EVENT.webhookTestResult,
    created_at: new Date().toISOString(),
    data: {
      organization_id: event.data.organization_id,
      endpoint_id: event.data.endpoint_id,
      test_event_id: event.id,
      accepted: result.ok,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      error: result.error,
    },
  };
}
