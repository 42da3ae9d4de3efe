import type { Db } from "@newsroom/shared/db/index";
import { type StoryEvent, WEBHOOK_EVENT_TYPES } from "@newsroom/shared/events";
import { isUuid } from "@newsroom/shared/ids";
import { activeTraceParent } from "@newsroom/shared/tracing/index";
import {
  type FannedOut,
  type FanOutClaimer,
  fanOutStoryEvents,
  type IncomingEvent,
  type OutboxRow,
} from "./store.ts";

export interface FanOutResult {
  /** Delivery rows created by this call. */
  created: number;
  /** Of them, claimed with the fan-out by the dispatcher of its process (queued there). */
  claimed: number;
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

/** A time `Date` reads, in years 0-9999 (what an ISO 8601 timestamp and PostgreSQL's array literal hold). */
function isInstantWithinYears(value: string): boolean {
  const time = Date.parse(value);
  return !Number.isNaN(time) && /^\d{4}-/.test(new Date(time).toISOString());
}

/** Whether a bus message is a story event this service can fan out (ids, type, time). */
export function isWellFormedStoryEvent(event: unknown): event is StoryEvent {
  const e = event as Partial<StoryEvent> | null;
  return (
    typeof e?.id === "string" &&
    isUuid(e.id) &&
    (WEBHOOK_EVENT_TYPES as readonly string[]).includes(e.type as string) &&
    typeof e.created_at === "string" &&
    isInstantWithinYears(e.created_at) &&
    typeof e.data?.organization_id === "string" &&
    isUuid(e.data.organization_id) &&
    (e.data.story_id === null || (typeof e.data.story_id === "string" && isUuid(e.data.story_id)))
  );
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
 * `fanOutEvent` for several events in one statement (`fanOutStoryEvents`), whatever their
 * number. Returns one result per event, in order; an event listed twice is handled once (the
 * repeat reads as already fanned out).
 */
export async function fanOutEvents(
  db: Db,
  events: StoryEvent[],
  /**
   * The trace each event's message was handled under (`traceparent`), by position: a batch
   * holds several messages, each with its own consume span. Default: the active one for all.
   */
  handledUnder: (string | null)[] = events.map(() => activeTraceParent()),
  /** The dispatcher of this process, which takes what the statement claims for it. */
  claimer?: FanOutClaimer,
): Promise<FanOutResult[]> {
  if (events.length === 0) return [];
  // The first of an event listed twice is the one fanned out.
  const incoming = new Map<string, IncomingEvent>();
  for (const [index, event] of events.entries()) {
    if (incoming.has(event.id)) continue;
    incoming.set(event.id, {
      id: event.id,
      type: event.type,
      organizationId: event.data.organization_id,
      storyId: event.data.story_id,
      createdAt: new Date(event.created_at),
      // The attempts join the trace of the event's own message, else (the reconciler) the one
      // of the transition that wrote the event.
      traceParent: handledUnder[index] ?? null,
    });
  }
  const offer = claimer?.offerToFanOut() ?? null;
  let fannedOut: FannedOut;
  try {
    fannedOut = await fanOutStoryEvents(db, [...incoming.values()], new Date(), offer ?? undefined);
  } catch (error) {
    if (offer) claimer?.claimedByFanOut(offer, null);
    throw error;
  }
  if (offer) claimer?.claimedByFanOut(offer, fannedOut.claimed);
  const created = new Map(fannedOut.events.map((row) => [row.eventId, row.created]));
  const claimed = new Map<string, number>();
  for (const row of fannedOut.claimed.rows) {
    claimed.set(row.eventId, (claimed.get(row.eventId) ?? 0) + 1);
  }
  const answered = new Set<string>();
  return events.map((event) => {
    const first = created.has(event.id) && !answered.has(event.id);
    answered.add(event.id);
    return first
      ? {
          created: created.get(event.id)!,
          claimed: claimed.get(event.id) ?? 0,
          alreadyFannedOut: false,
        }
      : { created: 0, claimed: 0, alreadyFannedOut: true };
  });
}
