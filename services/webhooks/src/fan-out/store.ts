import type { Queryable } from "@newsroom/shared/db/index";
import {
  outboxEvents,
  type WebhookEventType,
  webhookDeliveries,
  webhookEndpoints,
} from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { and, asc, eq, isNull, lt, sql } from "drizzle-orm";

export type OutboxRow = typeof outboxEvents.$inferSelect;

/** The outbox row of an event, locked until the transaction ends; null when there is none. */
export async function lockOutboxEvent(tx: Queryable, eventId: string): Promise<OutboxRow | null> {
  const [row] = await tx
    .select()
    .from(outboxEvents)
    .where(eq(outboxEvents.id, eventId))
    .for("update");
  return row ?? null;
}

export async function markFannedOut(
  tx: Queryable,
  organizationId: string,
  eventId: string,
  at: Date,
): Promise<void> {
  await tx
    .update(outboxEvents)
    .set({ fannedOutAt: at })
    .where(and(eq(outboxEvents.organizationId, organizationId), eq(outboxEvents.id, eventId)));
}

/** Ids of the organization's enabled endpoints subscribed to this event type. */
export async function subscribedEndpointIds(
  tx: Queryable,
  organizationId: string,
  type: WebhookEventType,
): Promise<string[]> {
  const rows = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.organizationId, organizationId),
        eq(webhookEndpoints.status, "enabled"),
        sql`${webhookEndpoints.events} @> ${JSON.stringify([type])}::jsonb`,
      ),
    );
  return rows.map((row) => row.id);
}

export interface DeliveryEvent {
  id: string;
  type: WebhookEventType;
  storyId: string | null;
  createdAt: Date;
}

/**
 * One pending delivery per endpoint, due now. An endpoint that already has a delivery of this
 * event keeps it (unique on endpoint and event): returns how many rows are new.
 */
export async function insertDeliveries(
  tx: Queryable,
  organizationId: string,
  event: DeliveryEvent,
  endpointIds: string[],
  now: Date,
): Promise<number> {
  if (endpointIds.length === 0) return 0;
  const rows = await tx
    .insert(webhookDeliveries)
    .values(
      endpointIds.map((endpointId) => ({
        id: newId(),
        organizationId,
        endpointId,
        eventId: event.id,
        eventType: event.type,
        storyId: event.storyId,
        eventCreatedAt: event.createdAt,
        status: "pending" as const,
        nextAttemptAt: now,
        createdAt: now,
      })),
    )
    .onConflictDoNothing({ target: [webhookDeliveries.endpointId, webhookDeliveries.eventId] })
    .returning({ id: webhookDeliveries.id });
  return rows.length;
}

/** Outbox events created before `before` that no one has fanned out yet, oldest first. */
export async function eventsNotFannedOut(
  db: Queryable,
  before: Date,
  limit: number,
): Promise<OutboxRow[]> {
  return db
    .select()
    .from(outboxEvents)
    .where(and(isNull(outboxEvents.fannedOutAt), lt(outboxEvents.createdAt, before)))
    .orderBy(asc(outboxEvents.createdAt))
    .limit(limit);
}
