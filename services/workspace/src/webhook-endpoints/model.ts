import type { webhookEndpoints } from "@newsroom/shared/db/schema";
import { iso, type WebhookEndpointOut, WebhookEventTypeSchema } from "@newsroom/shared/records";
import { t } from "elysia";

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

export const EndpointCreateIn = t.Object({
  url: t.String({ minLength: 1, maxLength: 2048 }),
  events: t.Array(WebhookEventTypeSchema, { minItems: 1, maxItems: 5, uniqueItems: true }),
});

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
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
