import type { Queryable } from "@newsroom/shared/db/index";
import {
  outboxEvents,
  storyTopics,
  topics,
  webhookDeliveries,
  webhookEndpoints,
  webhookFannedOutEvents,
} from "@newsroom/shared/db/schema";
import { type SubscribableEventType, WEBHOOK_EVENT_TYPES } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import type { EndpointOrdering } from "@newsroom/shared/webhook-endpoint-commands";
import { and, asc, eq, gte, inArray, lt, notExists, sql } from "drizzle-orm";
import {
  integerArray,
  nullableUuidArray,
  textArray,
  timestampArray,
  tokenArray,
  uuidArray,
} from "../sql-arrays.ts";

export type OutboxRow = typeof outboxEvents.$inferSelect;

// The fan-out's statements are prepared (each connection parses them once): unprepared, the
// driver first asks the server for their parameters' types, a round trip per statement. Their
// lists are single array parameters, so their text does not change with a batch's size.

/**
 * Records these events as fanned out at `at`, unless recorded already; returns the ids this call
 * recorded. Recording comes first in the fan-out transaction: a transaction that records an event
 * another one is recording waits for it, and then finds it recorded, so the consumer and the
 * reconciler (on any replica) never both fan out one event. Ids in order, so that two batches
 * sharing events wait on them in the same order.
 */
export async function recordFannedOut(
  tx: Queryable,
  eventIds: string[],
  at: Date,
): Promise<string[]> {
  if (eventIds.length === 0) return [];
  const rows = await tx
    .insert(webhookFannedOutEvents)
    .select(sql`
      select v.event_id, ${at.toISOString()}::timestamptz
      from unnest(${uuidArray([...eventIds].sort())}) as v(event_id)`)
    .onConflictDoNothing({ target: webhookFannedOutEvents.eventId })
    .returning({ eventId: webhookFannedOutEvents.eventId })
    .prepare("webhooks_record_fanned_out")
    .execute();
  return rows.map((row) => row.eventId);
}

/** The outbox rows of these events (the record of each: its fields win over a message's). */
export async function outboxEventsOf(tx: Queryable, eventIds: string[]): Promise<OutboxRow[]> {
  if (eventIds.length === 0) return [];
  return tx
    .select()
    .from(outboxEvents)
    .where(sql`${outboxEvents.id} = any(${uuidArray(eventIds)})`)
    .prepare("webhooks_fan_out_events")
    .execute();
}

export interface SubscribedEndpoint {
  id: string;
  organizationId: string;
  events: SubscribableEventType[];
  /** Topic slugs the endpoint is limited to; null for every story. */
  topics: string[] | null;
  ordering: EndpointOrdering;
}

/** The enabled endpoints of these organizations, with the event types each is subscribed to. */
export async function enabledEndpointsOf(
  tx: Queryable,
  organizationIds: string[],
): Promise<SubscribedEndpoint[]> {
  if (organizationIds.length === 0) return [];
  return tx
    .select({
      id: webhookEndpoints.id,
      organizationId: webhookEndpoints.organizationId,
      events: webhookEndpoints.events,
      topics: webhookEndpoints.topics,
      ordering: webhookEndpoints.ordering,
    })
    .from(webhookEndpoints)
    .where(
      and(
        sql`${webhookEndpoints.organizationId} = any(${uuidArray(organizationIds)})`,
        eq(webhookEndpoints.status, "enabled"),
      ),
    )
    .prepare("webhooks_fan_out_endpoints")
    .execute();
}

/** The topic slugs of these stories (a story without topics is absent), by story id. */
export async function topicsOfStories(
  tx: Queryable,
  stories: { organizationId: string; storyId: string }[],
): Promise<Map<string, string[]>> {
  if (stories.length === 0) return new Map();
  const organizationOf = new Map(stories.map((story) => [story.storyId, story.organizationId]));
  const rows = await tx
    .select({
      storyId: storyTopics.storyId,
      organizationId: topics.organizationId,
      slug: topics.slug,
    })
    .from(storyTopics)
    .innerJoin(topics, eq(topics.id, storyTopics.topicId))
    .where(sql`${storyTopics.storyId} = any(${uuidArray([...organizationOf.keys()])})`)
    .prepare("webhooks_fan_out_topics")
    .execute();
  const slugs = new Map<string, string[]>();
  for (const row of rows) {
    // A story id never crosses organizations.
    if (organizationOf.get(row.storyId) !== row.organizationId) continue;
    slugs.set(row.storyId, [...(slugs.get(row.storyId) ?? []), row.slug]);
  }
  return slugs;
}

export interface DeliveryEvent {
  id: string;
  type: SubscribableEventType;
  storyId: string | null;
  createdAt: Date;
  /** The trace its attempts join (`webhook_deliveries.trace_parent`). */
  traceParent: string | null;
  /** The story's event counter after this event; null for events recorded before it existed. */
  sequence: number | null;
}

/**
 * When a new delivery `v` is due: now, or for one in story order, not before the retry of an
 * earlier pending event of its story to the same endpoint (it would only wait for it). A claim
 * then does not read it over and over meanwhile. Unordered deliveries skip the lookup.
 *
 * The story's first pending delivery (the one a claim takes, so the one whose failed
 * attempt may be being recorded right now) is read with a "key share" lock, which the
 * recording's "for update" of that row and this lock wait for each other. Without it, a fan-out
 * reading the row before the recording commits, and committing after the recording held the
 * story's later events (its hold cannot see the uncommitted delivery), left the new delivery
 * due now, before the retry. With it: a fan-out that comes second waits for the recording to
 * commit and reads the retry's time (a locked row is read as last committed); a recording that
 * comes second waits for the fan-out to commit, and its hold then sees the new delivery. The lock
 * does not hold up claims (they skip a locked row), recordings of 2xx, or other fan-outs.
 */
function dueBehindEarlierEventsOfItsStory(now: Date) {
  const at = sql`${now.toISOString()}::timestamptz`;
  return sql`case when v.story_order is null then ${at} else greatest(${at}, (
      select max(earlier.next_attempt_at) from webhook_deliveries as earlier
      where earlier.endpoint_id = v.endpoint_id and earlier.story_id = v.story_id
        and earlier.status = 'pending' and earlier.story_order < v.story_order), (
      select first.next_attempt_at from webhook_deliveries as first
      where first.endpoint_id = v.endpoint_id and first.story_id = v.story_id
        and first.status = 'pending' and first.story_order < v.story_order
      order by first.story_order limit 1
      for key share of first)) end`;
}

/**
 * Pending deliveries, due now (an event in story order: see above), for several events at once
 * (one statement); an endpoint that
 * already has a delivery of an event keeps it. `storyOrder` is the event's place in its story for
 * an endpoint that delivers in story order, else null. Returns the event id of each new row.
 */
export async function insertManyDeliveries(
  tx: Queryable,
  wanted: {
    organizationId: string;
    endpointId: string;
    event: DeliveryEvent;
    storyOrder: number | null;
  }[],
  now: Date,
): Promise<string[]> {
  if (wanted.length === 0) return [];
  const column = <T>(pick: (item: (typeof wanted)[number]) => T) => wanted.map(pick);
  // Every column of the table, in its order (insert ... select names them all).
  const rows = await tx
    .insert(webhookDeliveries)
    .select(sql`
      select v.id, v.organization_id, v.endpoint_id, v.event_id, v.event_type, v.story_id,
             v.event_created_at, 'pending', 0, null, null, null,
             ${dueBehindEarlierEventsOfItsStory(now)},
             null, ${now.toISOString()}::timestamptz, null, v.trace_parent, v.story_order
      from unnest(
        ${uuidArray(column(() => newId()))},
        ${uuidArray(column((item) => item.organizationId))},
        ${uuidArray(column((item) => item.endpointId))},
        ${uuidArray(column((item) => item.event.id))},
        ${tokenArray(column((item) => item.event.type))},
        ${nullableUuidArray(column((item) => item.event.storyId))},
        ${timestampArray(column((item) => item.event.createdAt))},
        ${textArray(column((item) => item.event.traceParent))},
        ${integerArray(column((item) => item.storyOrder))}
      ) as v(id, organization_id, endpoint_id, event_id, event_type, story_id, event_created_at,
             trace_parent, story_order)`)
    .onConflictDoNothing({ target: [webhookDeliveries.endpointId, webhookDeliveries.eventId] })
    .returning({ eventId: webhookDeliveries.eventId })
    .prepare("webhooks_insert_deliveries")
    .execute();
  return rows.map((row) => row.eventId);
}

/**
 * Story events in the outbox created between `since` and `before` that this service has no
 * record of having fanned out, oldest first. Only story events: others have their own path.
 */
export async function eventsNotFannedOut(
  db: Queryable,
  since: Date,
  before: Date,
  limit: number,
): Promise<OutboxRow[]> {
  const recorded = db
    .select({ one: sql`1` })
    .from(webhookFannedOutEvents)
    .where(eq(webhookFannedOutEvents.eventId, outboxEvents.id));
  return db
    .select()
    .from(outboxEvents)
    .where(
      and(
        gte(outboxEvents.createdAt, since),
        lt(outboxEvents.createdAt, before),
        inArray(outboxEvents.type, [...WEBHOOK_EVENT_TYPES]),
        notExists(recorded),
      ),
    )
    .orderBy(asc(outboxEvents.createdAt))
    .limit(limit);
}
