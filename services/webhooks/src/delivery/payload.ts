import type { Queryable } from "@newsroom/shared/db/index";
import { stories, storyVersions } from "@newsroom/shared/db/schema";
import { EVENT, type WebhookTestEvent } from "@newsroom/shared/events";
import type { StoryOut, WebhookEventOut, WebhookTestEventOut } from "@newsroom/shared/records";
import {
  currentVersionOf,
  readStory,
  storyRecordColumns,
  storyRecordOf,
} from "@newsroom/shared/story-records";
import { sql } from "drizzle-orm";
import { uuidArray } from "../sql-arrays.ts";
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
 * The bodies of a batch of deliveries, by event id, rebuilt now as `eventBody` does (the same
 * Story record), with one query for the whole batch: each story with its current version's
 * title and summary and its topic slugs.
 */
export async function eventBodies(
  db: Queryable,
  deliveries: EventOfDelivery[],
): Promise<Map<string, string>> {
  const wanted = new Set<string>();
  const organizationIds = new Set<string>();
  const storyIds = new Set<string>();
  for (const delivery of deliveries) {
    if (!delivery.storyId) continue;
    wanted.add(`${delivery.organizationId} ${delivery.storyId}`);
    organizationIds.add(delivery.organizationId);
    storyIds.add(delivery.storyId);
  }
  const storiesByKey = new Map<string, StoryOut>();
  if (storyIds.size > 0) {
    const rows = await db
      .select(storyRecordColumns)
      .from(stories)
      .leftJoin(storyVersions, currentVersionOf)
      .where(
        sql`${stories.organizationId} = any(${uuidArray([...organizationIds])})
          and ${stories.id} = any(${uuidArray([...storyIds])})`,
      );
    for (const row of rows) {
      const key = `${row.story.organizationId} ${row.story.id}`;
      // Only the pairs asked for: a story id never crosses organizations.
      if (!wanted.has(key)) continue;
      storiesByKey.set(key, storyRecordOf(row));
    }
  }
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
