import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import type { Db, Queryable } from "@newsroom/shared/db/index";
import { webhookEndpoints, webhookStatusEvents } from "@newsroom/shared/db/schema";
import { EVENT, type StatusIncidentUpdatedEvent } from "@newsroom/shared/events";
import { log } from "@newsroom/shared/log";
import { isWellFormedStatusEvent } from "@newsroom/shared/status-events";
import { activeTraceParent } from "@newsroom/shared/tracing/index";
import { and, eq, sql } from "drizzle-orm";
import type { FanOutHooks } from "./consumer.ts";
import type { FanOutResult } from "./service.ts";
import { insertManyDeliveries, recordFannedOut } from "./store.ts";

/** The durable consumer of the status page's events: every replica shares it. */
export const STATUS_FAN_OUT_CONSUMER = "webhooks-status-fanout";

/**
 * Consumes the status page's events (`status.incident_updated`) from the bus and fans each out
 * (`fanOutStatusEvent`); acked once its deliveries are written, redelivered after a failure.
 * Malformed messages are dropped (acked) with a warning.
 */
export function startStatusFanOutConsumer(
  db: Db,
  bus: EventBus,
  hooks: FanOutHooks,
  durable = STATUS_FAN_OUT_CONSUMER,
): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      if (!isWellFormedStatusEvent(event)) {
        const id = (event as { id?: unknown } | null)?.id;
        log.warn("dropping a malformed status event", { event_id: id });
        return;
      }
      const result = await fanOutStatusEvent(db, event);
      if (result.created > 0) hooks.onDeliveries();
    },
    { durable, types: [EVENT.statusIncidentUpdated] },
  );
}

/**
 * The enabled endpoints, of every organization, subscribed to a status event type: the status
 * page is public and its events have no organization. Topics and story order do not apply.
 */
async function endpointsSubscribedTo(tx: Queryable, type: string) {
  return tx
    .select({ id: webhookEndpoints.id, organizationId: webhookEndpoints.organizationId })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.status, "enabled"),
        sql`${webhookEndpoints.events} @> ${JSON.stringify([type])}::jsonb`,
      ),
    );
}

/**
 * One pending delivery per enabled endpoint subscribed to the event, in any organization, and
 * the event kept (`webhook_status_events`) for the bodies of its attempts, in one transaction.
 * Recorded as fanned out first, like a story event: a redelivered message creates nothing.
 */
export async function fanOutStatusEvent(
  db: Db,
  event: StatusIncidentUpdatedEvent,
): Promise<FanOutResult> {
  const traceParent = activeTraceParent();
  return db.transaction(async (tx) => {
    const now = new Date();
    const recorded = await recordFannedOut(tx, [event.id], now);
    if (recorded.length === 0) return { created: 0, claimed: 0, alreadyFannedOut: true };
    const createdAt = new Date(event.created_at);
    await tx
      .insert(webhookStatusEvents)
      .values({ id: event.id, type: event.type, data: event.data, createdAt, recordedAt: now })
      .onConflictDoNothing({ target: webhookStatusEvents.id });
    const endpoints = await endpointsSubscribedTo(tx, event.type);
    const created = await insertManyDeliveries(
      tx,
      endpoints.map((endpoint) => ({
        organizationId: endpoint.organizationId,
        endpointId: endpoint.id,
        event: {
          id: event.id,
          type: event.type,
          storyId: null,
          createdAt,
          traceParent,
          sequence: null,
        },
        storyOrder: null,
      })),
      now,
    );
    return { created: created.length, claimed: 0, alreadyFannedOut: false };
  });
}
