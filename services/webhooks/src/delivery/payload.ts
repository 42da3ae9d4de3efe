import type { Queryable } from "@newsroom/shared/db/index";
import { EVENT, type WebhookTestEvent } from "@newsroom/shared/events";
import type { WebhookEventOut, WebhookTestEventOut } from "@newsroom/shared/records";
import { readStory } from "@newsroom/shared/story-records";
import type { DeliveryRow } from "./store.ts";

/**
 * The WebhookEvent body of a delivery, rebuilt now: `data.story` is the story as it reads at
 * this moment, or null when it is gone; `created_at` is when the story changed.
 */
export async function eventBody(
  db: Queryable,
  delivery: Pick<
    DeliveryRow,
    "organizationId" | "eventId" | "eventType" | "storyId" | "eventCreatedAt"
  >,
): Promise<string> {
  const story = delivery.storyId
    ? await readStory(db, delivery.organizationId, delivery.storyId)
    : null;
  const body: WebhookEventOut = {
    id: delivery.eventId,
    object: "event",
    type: delivery.eventType,
    created_at: delivery.eventCreatedAt.toISOString(),
    data: { story_id: delivery.storyId as string, story },
  };
  return JSON.stringify(body);
}

/** The body of `webhook.test`: the event id, its time, and the endpoint it tests. */
export function testEventBody(event: WebhookTestEvent): string {
  const body: WebhookTestEventOut = {
    id: event.id,
    object: "event",
    type: EVENT.webhookTest,
    created_at: event.created_at,
    data: { endpoint_id: event.data.endpoint_id },
  };
  return JSON.stringify(body);
}
