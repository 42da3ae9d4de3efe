import type {
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from "@newsroom/shared/db/schema";

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
