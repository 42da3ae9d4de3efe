import type { Queryable } from "@newsroom/shared/db/index";
import { stories } from "@newsroom/shared/db/schema";
import { EVENT, type WebhookTestEvent } from "@newsroom/shared/events";
import type { StoryOut, WebhookEventOut, WebhookTestEventOut } from "@newsroom/shared/records";
import { readStory, storyRecords } from "@newsroom/shared/story-records";
import { and, eq, inArray } from "drizzle-orm";
import type { DeliveryRow } from "./store.ts";

type EventOfDelivery = Pick<
  DeliveryRow,
  "organizationId" | "eventId" | "eventType" | "storyId" | "eventCreatedAt"
>;

/**
 * The WebhookEvent body of a delivery, rebuilt now: `data.story` is the story as it reads at
 * this moment, or null when it is gone; `created_at` is when the story changed.
 */
export async function eventBody(db: Queryable, delivery: EventOfDelivery): Promise<string> {
  const story = delivery.storyId
    ? await readStory(db, delivery.organizationId, delivery.storyId)
    : null;
  return bodyOf(delivery, story);
}

/**
 * The bodies of a batch of deliveries, by event id, rebuilt now as `eventBody` does: three
 * queries per organization in the batch, whatever the number of events.
 */
export async function eventBodies(
  db: Queryable,
  deliveries: EventOfDelivery[],
): Promise<Map<string, string>> {
  const storyIdsByOrg = new Map<string, Set<string>>();
  for (const delivery of deliveries) {
    if (!delivery.storyId) continue;
    const ids = storyIdsByOrg.get(delivery.organizationId) ?? new Set<string>();
    ids.add(delivery.storyId);
    storyIdsByOrg.set(delivery.organizationId, ids);
  }
  const storiesByKey = new Map<string, StoryOut>();
  await Promise.all(
    [...storyIdsByOrg].map(async ([organizationId, ids]) => {
      const rows = await db
        .select()
        .from(stories)
        .where(and(eq(stories.organizationId, organizationId), inArray(stories.id, [...ids])));
      for (const record of await storyRecords(db, organizationId, rows)) {
        storiesByKey.set(`${organizationId} ${record.id}`, record);
      }
    }),
  );
  const bodies = new Map<string, string>();
  for (const delivery of deliveries) {
    if (bodies.has(delivery.eventId)) continue;
    const story = delivery.storyId
      ? (storiesByKey.get(`${delivery.organizationId} ${delivery.storyId}`) ?? null)
      : null;
    bodies.set(delivery.eventId, bodyOf(delivery, story));
  }
  return bodies;
}

function bodyOf(delivery: EventOfDelivery, story: StoryOut | null): string {
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
