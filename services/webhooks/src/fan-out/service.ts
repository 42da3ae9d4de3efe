import type { Db } from "@newsroom/shared/db/index";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@newsroom/shared/db/schema";
import type { StoryEvent } from "@newsroom/shared/events";
import { isUuid } from "@newsroom/shared/ids";
import {
  type DeliveryEvent,
  insertDeliveries,
  lockOutboxEvent,
  markFannedOut,
  type OutboxRow,
  subscribedEndpointIds,
} from "./store.ts";

export interface FanOutResult {
  /** Delivery rows created by this call. */
  created: number;
  /** The outbox already recorded the event as fanned out: nothing was done. */
  alreadyFannedOut: boolean;
}

/** The story event as the bus carries it, read from an outbox row. */
export function storyEventOf(row: OutboxRow): StoryEvent {
  return {
    id: row.id,
    type: row.type,
    created_at: row.createdAt.toISOString(),
    data: { organization_id: row.organizationId, story_id: row.storyId },
  };
}

/** Whether a bus message is a story event this service can fan out (ids, type, time). */
export function isWellFormedStoryEvent(event: unknown): event is StoryEvent {
  const e = event as Partial<StoryEvent> | null;
  return (
    typeof e?.id === "string" &&
    isUuid(e.id) &&
    (WEBHOOK_EVENT_TYPES as readonly string[]).includes(e.type as string) &&
    typeof e.created_at === "string" &&
    !Number.isNaN(Date.parse(e.created_at)) &&
    typeof e.data?.organization_id === "string" &&
    isUuid(e.data.organization_id) &&
    (e.data.story_id === null || (typeof e.data.story_id === "string" && isUuid(e.data.story_id)))
  );
}

/**
 * Turns one story event into one pending delivery per enabled endpoint of its organization
 * subscribed to its type, and records the event as fanned out, in one transaction. The outbox
 * row is locked first, so the consumer and the reconciler (on any replica) never both fan out
 * one event, and an event already fanned out is left alone: a redelivered message creates
 * nothing. The outbox row, when there is one, is the record: its fields win over the message.
 */
export async function fanOutEvent(db: Db, event: StoryEvent): Promise<FanOutResult> {
  return db.transaction(async (tx) => {
    const outbox = await lockOutboxEvent(tx, event.id);
    if (outbox?.fannedOutAt) return { created: 0, alreadyFannedOut: true };
    const organizationId = outbox?.organizationId ?? event.data.organization_id;
    const delivery: DeliveryEvent = outbox
      ? { id: outbox.id, type: outbox.type, storyId: outbox.storyId, createdAt: outbox.createdAt }
      : {
          id: event.id,
          type: event.type as WebhookEventType,
          storyId: event.data.story_id,
          createdAt: new Date(event.created_at),
        };
    const now = new Date();
    const endpointIds = await subscribedEndpointIds(tx, organizationId, delivery.type);
    const created = await insertDeliveries(tx, organizationId, delivery, endpointIds, now);
    if (outbox) await markFannedOut(tx, organizationId, outbox.id, now);
    return { created, alreadyFannedOut: false };
  });
}
