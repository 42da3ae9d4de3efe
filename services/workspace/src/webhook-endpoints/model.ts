import type { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { WebhookEventTypeSchema } from "@newsroom/shared/records";
import { t } from "elysia";

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

export const EndpointCreateIn = t.Object({
  url: t.String({ minLength: 1, maxLength: 2048 }),
  events: t.Array(WebhookEventTypeSchema, { minItems: 1, maxItems: 5, uniqueItems: true }),
});

/** `since`: a date-time at most 14 days back (checked by `parseRecoverSince`, naming the field). */
export const EndpointRecoverIn = t.Object({ since: t.Optional(t.String({ maxLength: 64 })) });
