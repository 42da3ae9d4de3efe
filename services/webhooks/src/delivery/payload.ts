import type { Queryable } from "@newsroom/shared/db/index";
import { outboxEvents, stories, storyVersions } from "@newsroom/shared/db/schema";
import { uuidArray } from "@newsroom/shared/db/sql-arrays";
import {
  isOperationalEventType,
  isStatusEventType,
  type WebhookEventType,
} from "@newsroom/shared/events";
import type { StoryOut, WebhookEventOut, WebhookTestEventOut } from "@newsroom/shared/records";
import {
  currentVersionOf,
  readStory,
  storyRecordColumns,
  storyRecordOf,
} from "@newsroom/shared/story-records";
import { sql } from "drizzle-orm";
import { alertEventBodies } from "../alerts/payload.ts";
import { statusEventBodies } from "../fan-out/status-payload.ts";
import type { ClaimedContext, DeliveryRow, EventOrder } from "./store.ts";

type EventOfDelivery = Pick<
  DeliveryRow,
  "organizationId" | "eventId" | "eventType" | "storyId" | "eventCreatedAt"
>;

/**
 * The WebhookEvent body of a delivery, rebuilt now: `data.story` is the story as it reads at
 * this moment, or null when it is gone; `created_at` is when the story changed.
 */
export async function eventBody(db: Queryable, delivery: EventOfDelivery): Promise<string> {
  const [story, orders] = await Promise.all([
    delivery.storyId ? readStory(db, delivery.organizationId, delivery.storyId) : null,
    eventOrders(db, [delivery]),
  ]);
  return bodyOf(delivery, story, orders.get(delivery.eventId));
}

/** The `sequence` and `previous_status` of these events, by event id, in one query. */
async function eventOrders(
  db: Queryable,
  deliveries: EventOfDelivery[],
): Promise<Map<string, EventOrder>> {
  const rows = await db
    .select({
      id: outboxEvents.id,
      organizationId: outboxEvents.organizationId,
      sequence: outboxEvents.sequence,
      previousStatus: outboxEvents.previousStatus,
    })
    .from(outboxEvents)
    .where(
      sql`${outboxEvents.organizationId} = any(${uuidArray([...new Set(deliveries.map((d) => d.organizationId))])})
        and ${outboxEvents.id} = any(${uuidArray([...new Set(deliveries.map((d) => d.eventId))])})`,
    )
    .prepare("webhooks_event_orders")
    .execute();
  const organizationOf = new Map(deliveries.map((d) => [d.eventId, d.organizationId]));
  const orders = new Map<string, EventOrder>();
  for (const row of rows) {
    // Only an event of the delivery's own organization.
    if (organizationOf.get(row.id) !== row.organizationId) continue;
    orders.set(row.id, { sequence: row.sequence, previousStatus: row.previousStatus });
  }
  return orders;
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
  // The status page's events carry the data the bus brought, kept when they were fanned out.
  if (deliveries.some((delivery) => isStatusEventType(delivery.eventType))) {
    const [status, others] = await Promise.all([
      statusEventBodies(
        db,
        deliveries.filter((delivery) => isStatusEventType(delivery.eventType)),
      ),
      eventBodies(
        db,
        deliveries.filter((delivery) => !isStatusEventType(delivery.eventType)),
      ),
    ]);
    for (const [id, body] of status) others.set(id, body);
    return others;
  }
  // Operational events (alerts) carry the data written when they were raised.
  if (deliveries.some((delivery) => isOperationalEventType(delivery.eventType))) {
    const [alerts, stories] = await Promise.all([
      alertEventBodies(
        db,
        deliveries.filter((delivery) => isOperationalEventType(delivery.eventType)),
      ),
      eventBodies(
        db,
        deliveries.filter((delivery) => !isOperationalEventType(delivery.eventType)),
      ),
    ]);
    for (const [id, body] of alerts) stories.set(id, body);
    return stories;
  }
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
  const ordersPromise = deliveries.length > 0 ? eventOrders(db, deliveries) : new Map();
  if (storyIds.size > 0) {
    const rows = await db
      .select(storyRecordColumns)
      .from(stories)
      .leftJoin(storyVersions, currentVersionOf)
      .where(
        sql`${stories.organizationId} = any(${uuidArray([...organizationIds])})
          and ${stories.id} = any(${uuidArray([...storyIds])})`,
      )
      .prepare("webhooks_event_stories")
      .execute();
    for (const row of rows) {
      const key = `${row.story.organizationId} ${row.story.id}`;
      // Only the pairs asked for: a story id never crosses organizations.
      if (!wanted.has(key)) continue;
      storiesByKey.set(key, storyRecordOf(row));
    }
  }
  const orders = await ordersPromise;
  const bodies = new Map<string, string>();
  for (const delivery of deliveries) {
    if (bodies.has(delivery.eventId)) continue;
    const story = delivery.storyId
      ? (storiesByKey.get(`${delivery.organizationId} ${delivery.storyId}`) ?? null)
      : null;
    bodies.set(delivery.eventId, bodyOf(delivery, story, orders.get(delivery.eventId)));
  }
  return bodies;
}

/**
 * The bodies of a claimed batch, by event id: a story's event from what its claim read (the
 * story and its order, in the claim's statement), the status page's and alerts' events from
 * their own data (one read, only when the batch has any).
 */
export async function claimedBodies(
  db: Queryable,
  deliveries: DeliveryRow[],
  context: Map<string, ClaimedContext>,
): Promise<Map<string, string>> {
  const ownData = (delivery: DeliveryRow) =>
    isStatusEventType(delivery.eventType) || isOperationalEventType(delivery.eventType);
  const others = deliveries.filter(ownData);
  const bodies = others.length > 0 ? await eventBodies(db, others) : new Map<string, string>();
  for (const delivery of deliveries) {
    const read = context.get(delivery.id);
    if (ownData(delivery) || bodies.has(delivery.eventId) || !read) continue;
    bodies.set(delivery.eventId, bodyOf(delivery, read.story, read.order));
  }
  return bodies;
}

function bodyOf(
  delivery: EventOfDelivery,
  story: StoryOut | null,
  order: EventOrder | undefined,
): string {
  const body: WebhookEventOut = {
    id: delivery.eventId,
    object: "event",
    type: delivery.eventType as WebhookEventType,
    created_at: delivery.eventCreatedAt.toISOString(),
    data: {
      story_id: delivery.storyId as string,
      story,
      sequence: order?.sequence ?? null,
      previous_status: order?.previousStatus ?? null,
    },
  };
  return JSON.stringify(body);
}

/** The body of `webhook.test`: the event id, its time, and the endpoint it tests. */
export function testEventBody(test: { id: string; createdAt: Date; endpointId: string }): string {
  const body: WebhookTestEventOut = {
    id: test.id,
    object: "event",
    type: "webhook.test",
    created_at: test.createdAt.toISOString(),
    data: { endpoint_id: test.endpointId },
  };
  return JSON.stringify(body);
}
