import type { EventBus } from "@newsroom/shared/bus/index";
import type { Queryable } from "@newsroom/shared/db/index";
import { webhookAlerts } from "@newsroom/shared/db/schema";
import {
  EVENT,
  type WebhookDeliveryExhaustedEvent,
  type WebhookEndpointFailingEvent,
} from "@newsroom/shared/events";
import { log } from "@newsroom/shared/log";
import { and, asc, eq, isNull } from "drizzle-orm";

const a = webhookAlerts;

/** Announcements per pass at most; the rest wait for the next pass. */
const BATCH = 100;

/**
 * Publishes the bus event of each alert still owed (`announced_at` null): the workspace hears
 * it and emails the people who own the endpoint. The event's id is the alert's, so a publish
 * repeated after a failure (or by another replica) is dropped by JetStream and recorded once
 * by the workspace. A failed publish throws and leaves the rest owed for the periodic pass.
 * The disabling's alert is announced by `webhook_endpoint.disabled`'s own path.
 */
export async function announceAlerts(db: Queryable, bus: EventBus): Promise<number> {
  const owed = await db
    .select()
    .from(a)
    .where(isNull(a.announcedAt))
    .orderBy(asc(a.createdAt))
    .limit(BATCH);
  for (const alert of owed) {
    const event = busEventOf(alert);
    if (event) await bus.publish(event);
    await db
      .update(a)
      .set({ announcedAt: new Date() })
      .where(and(eq(a.id, alert.id), isNull(a.announcedAt)));
    log.info("webhook alert announced", {
      alert_id: alert.id,
      type: alert.type,
      endpoint_id: alert.endpointId,
      organization_id: alert.organizationId,
    });
  }
  return owed.length;
}

function busEventOf(
  alert: typeof webhookAlerts.$inferSelect,
): WebhookEndpointFailingEvent | WebhookDeliveryExhaustedEvent | null {
  const common = { id: alert.id, created_at: alert.createdAt.toISOString() };
  const data = { organization_id: alert.organizationId, ...alert.data };
  if (alert.type === EVENT.webhookEndpointFailing) {
    return {
      ...common,
      type: EVENT.webhookEndpointFailing,
      data: data as WebhookEndpointFailingEvent["data"],
    };
  }
  if (alert.type === EVENT.webhookDeliveryExhausted) {
    return {
      ...common,
      type: EVENT.webhookDeliveryExhausted,
      data: data as WebhookDeliveryExhaustedEvent["data"],
    };
  }
  return null;
}
