import type { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import {
  iso,
  type WebhookDeliveryOut,
  type WebhookEndpointOut,
  WebhookEventTypeSchema,
} from "@newsroom/shared/records";
import { t } from "elysia";

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

export const EndpointCreateIn = t.Object({
  url: t.String({ minLength: 1, maxLength: 2048 }),
  events: t.Array(WebhookEventTypeSchema, { minItems: 1, maxItems: 5, uniqueItems: true }),
});

/** `since`: a date-time at most 14 days back (checked by `parseRecoverSince`, naming the field). */
export const EndpointRecoverIn = t.Object({ since: t.Optional(t.String({ maxLength: 64 })) });

/** The WebhookEndpoint record; the secret never appears here. */
export function webhookEndpointOut(row: WebhookEndpointRow): WebhookEndpointOut {
  return {
    object: "webhook_endpoint",
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    disabled_reason: row.disabledReason,
    secret_hint: row.secretHint,
    previous_secret_expires_at: iso(row.previousSecretExpiresAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** The WebhookDelivery record, as the client API shows it. */
export function webhookDeliveryOut(row: WebhookDeliveryRow): WebhookDeliveryOut {
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
