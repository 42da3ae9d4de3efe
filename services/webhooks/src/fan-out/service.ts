import type { Db } from "@newsroom/shared/db/index";
import {
  type StoryEvent,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "@newsroom/shared/events";
import { isUuid } from "@newsroom/shared/ids";
import { activeTraceParent } from "@newsroom/shared/tracing/index";
import {
  type DeliveryEvent,
  enabledEndpointsOf,
  insertManyDeliveries,
  type OutboxRow,
  outboxEventsOf,
  recordFannedOut,
  type SubscribedEndpoint,
  topicsOfStories,
} from "./store.ts";

export interface FanOutResult {
  /** Delivery rows created by this call. */
  created: number;
  /** The event was recorded as fanned out already: nothing was done. */
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

/** Whether an endpoint wants a story with these topics: any story, or one of its topics. */
function coversTopics(endpoint: SubscribedEndpoint, storyTopics: string[]): boolean {
  return endpoint.topics === null || storyTopics.some((slug) => endpoint.topics!.includes(slug));
}

/**
 * A delivery's place among its story's events, for an endpoint that delivers in story order: the
 * event's sequence. Null (it waits for nothing) otherwise, and for an event without a story or
 * recorded before sequences existed.
 */
function storyOrderOf(endpoint: SubscribedEndpoint, event: DeliveryEvent): number | null {
  return endpoint.ordering === "story" && event.storyId !== null ? event.sequence : null;
}

/**
 * Turns one story event into one pending delivery per enabled endpoint of its organization
 * subscribed to its type (and, for an endpoint limited to topics, whose story has one of them
 * as it reads now), and records the event as fanned out (`webhook_fanned_out_events`), in
 * one transaction. The record is written first, so the consumer and the reconciler (on any
 * replica) never both fan out one event, and an event already fanned out is left alone: a
 * redelivered message creates nothing. The outbox row, when there is one, is the event's
 * record: its fields win over the message.
 */
export async function fanOutEvent(db: Db, event: StoryEvent): Promise<FanOutResult> {
  const [result] = await fanOutEvents(db, [event]);
  return result!;
}

/**
 * `fanOutEvent` for several events in one transaction and a fixed number of statements (record
 * the events, read their outbox rows and the organizations' enabled endpoints, the stories'
 * topics when an endpoint is limited to some, insert), whatever the number of events. Returns one result per event, in order; an event listed twice is handled
 * once (the repeat reads as already fanned out).
 */
export async function fanOutEvents(
  db: Db,
  events: StoryEvent[],
  /**
   * The trace each event's message was handled under (`traceparent`), by position: a batch
   * holds several messages, each with its own consume span. Default: the active one for all.
   */
  handledUnder: (string | null)[] = events.map(() => activeTraceParent()),
): Promise<FanOutResult[]> {
  if (events.length === 0) return [];
  return db.transaction(async (tx) => {
    const now = new Date();
    const recorded = new Set(
      await recordFannedOut(tx, [...new Set(events.map((event) => event.id))], now),
    );
    const outbox = new Map((await outboxEventsOf(tx, [...recorded])).map((row) => [row.id, row]));
    const todo = new Map<string, { organizationId: string; delivery: DeliveryEvent }>();
    for (const [index, event] of events.entries()) {
      const row = outbox.get(event.id);
      if (!recorded.has(event.id) || todo.has(event.id)) continue;
      // The attempts join the trace of the event's own message, else (the reconciler) the one of
      // the transition that wrote the event.
      const traceParent = handledUnder[index] ?? row?.traceParent ?? null;
      todo.set(event.id, {
        organizationId: row?.organizationId ?? event.data.organization_id,
        delivery: row
          ? {
              id: row.id,
              type: row.type,
              storyId: row.storyId,
              createdAt: row.createdAt,
              traceParent,
              sequence: row.sequence,
            }
          : {
              id: event.id,
              type: event.type as WebhookEventType,
              storyId: event.data.story_id,
              createdAt: new Date(event.created_at),
              traceParent,
              sequence: null,
            },
      });
    }
    const endpoints = await enabledEndpointsOf(tx, [
      ...new Set([...todo.values()].map((item) => item.organizationId)),
    ]);
    // Topics are read only when an endpoint in scope is limited to some.
    const storyTopics = endpoints.some((endpoint) => endpoint.topics !== null)
      ? await topicsOfStories(
          tx,
          [...todo.values()].flatMap(({ organizationId, delivery }) =>
            delivery.storyId ? [{ organizationId, storyId: delivery.storyId }] : [],
          ),
        )
      : new Map<string, string[]>();
    const wanted = [...todo.values()].flatMap(({ organizationId, delivery }) =>
      endpoints
        .filter(
          (endpoint) =>
            endpoint.organizationId === organizationId &&
            endpoint.events.includes(delivery.type) &&
            coversTopics(endpoint, storyTopics.get(delivery.storyId ?? "") ?? []),
        )
        .map((endpoint) => ({
          organizationId,
          endpointId: endpoint.id,
          event: delivery,
          storyOrder: storyOrderOf(endpoint, delivery),
        })),
    );
    const created = new Map<string, number>();
    for (const eventId of await insertManyDeliveries(tx, wanted, now)) {
      created.set(eventId, (created.get(eventId) ?? 0) + 1);
    }
    const answered = new Set<string>();
    return events.map((event) => {
      const first = todo.has(event.id) && !answered.has(event.id);
      answered.add(event.id);
      return first
        ? { created: created.get(event.id) ?? 0, alreadyFannedOut: false }
        : { created: 0, alreadyFannedOut: true };
    });
  });
}
