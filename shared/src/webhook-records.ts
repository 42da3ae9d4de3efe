import { webhookDeliveries, webhookEndpoints } from "./db/schema.ts";
import { iso, type WebhookDeliveryOut, type WebhookEndpointOut } from "./records.ts";

/**
 * The WebhookEndpoint and WebhookDelivery records, for every service that shows them (the
 * client API, the workspace's internal API). A reader that shows more spreads the record and
 * adds its fields, like the secret shown once on create.
 */

/**
 * The columns a WebhookEndpoint record is made of, for a `select` that reads no more: the
 * sealed secrets are not among them.
 */
export const webhookEndpointRecordColumns = {
  id: webhookEndpoints.id,
  name: webhookEndpoints.name,
  url: webhookEndpoints.url,
  events: webhookEndpoints.events,
  status: webhookEndpoints.status,
  disabledReason: webhookEndpoints.disabledReason,
  secretHint: webhookEndpoints.secretHint,
  previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
  topics: webhookEndpoints.topics,
  authType: webhookEndpoints.authType,
  rateLimitPerSecond: webhookEndpoints.rateLimitPerSecond,
  ordering: webhookEndpoints.ordering,
  failureAlertPercent: webhookEndpoints.failureAlertPercent,
  createdAt: webhookEndpoints.createdAt,
  updatedAt: webhookEndpoints.updatedAt,
};

/** The columns a WebhookDelivery record is made of. */
export const webhookDeliveryRecordColumns = {
  id: webhookDeliveries.id,
  endpointId: webhookDeliveries.endpointId,
  eventId: webhookDeliveries.eventId,
  eventType: webhookDeliveries.eventType,
  storyId: webhookDeliveries.storyId,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  lastStatusCode: webhookDeliveries.lastStatusCode,
  lastDurationMs: webhookDeliveries.lastDurationMs,
  lastError: webhookDeliveries.lastError,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  createdAt: webhookDeliveries.createdAt,
  deliveredAt: webhookDeliveries.deliveredAt,
};

/** A whole endpoint row, or one read with `webhookEndpointRecordColumns`. */
export type WebhookEndpointRecordRow = Pick<
  typeof webhookEndpoints.$inferSelect,
  keyof typeof webhookEndpointRecordColumns
>;

/** A whole delivery row, or one read with `webhookDeliveryRecordColumns`. */
export type WebhookDeliveryRecordRow = Pick<
  typeof webhookDeliveries.$inferSelect,
  keyof typeof webhookDeliveryRecordColumns
>;

/** What the record shows of an endpoint's `whsec_` secret: its last four characters. */
export function webhookSecretHint(secret: string): string {
  return secret.slice(-4);
}

/** The WebhookEndpoint record; the secret never appears in it, only its hint. */
export function webhookEndpointRecord(row: WebhookEndpointRecordRow): WebhookEndpointOut {
  return {
    object: "webhook_endpoint",
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabled_reason: row.disabledReason ?? null,
    secret_hint: row.secretHint,
    previous_secret_expires_at: iso(row.previousSecretExpiresAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    name: row.name,
    topics: row.topics ?? null,
    auth_type: row.authType ?? null,
    rate_limit_per_second: row.rateLimitPerSecond ?? null,
    ordering: row.ordering,
    failure_alert_percent: row.failureAlertPercent ?? 0,
  };
}

/** The WebhookDelivery record. */
export function webhookDeliveryRecord(row: WebhookDeliveryRecordRow): WebhookDeliveryOut {
  return {
    object: "webhook_delivery",
    id: row.id,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType,
    story_id: row.storyId,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_duration_ms: row.lastDurationMs,
    last_error: row.lastError,
    next_attempt_at: iso(row.nextAttemptAt),
    created_at: iso(row.createdAt),
    delivered_at: iso(row.deliveredAt),
  };
}
