import type { Queryable } from "@newsroom/shared/db/index";
import { insertSelecting, placeholdersOf, placeholderValues } from "@newsroom/shared/db/prepared";
import { outboxEvents, type StoryStatus } from "@newsroom/shared/db/schema";
import type { WebhookEventType } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { activeTraceParent } from "@newsroom/shared/tracing/index";
import type { SQL } from "drizzle-orm";

export interface OutboxEventInput {
  organizationId: string;
  type: WebhookEventType;
  storyId: string;
  at: Date;
  /** The story's event counter after this event (see `stories.event_sequence`). */
  sequence: number;
  previousStatus: StoryStatus;
}

const OUTBOX_ROW_KEYS = [
  "id",
  "organizationId",
  "type",
  "storyId",
  "sequence",
  "previousStatus",
  "createdAt",
  "traceParent",
] as const;
const EVENT_PLACEHOLDERS = "event.";

/**
 * An event's outbox row, written by the statement that changes its story: an insert for the
 * statement's common table expression `source`, written only when `source` (the story's write)
 * has a row. Its values are placeholders (a statement built once, `builtOnce`), given by
 * `outboxEventValues`.
 */
export function outboxEventInsertFrom(source: string): SQL {
  return insertSelecting(outboxEvents, placeholdersOf(OUTBOX_ROW_KEYS, EVENT_PLACEHOLDERS), source);
}

/**
 * The values of `outboxEventInsertFrom`'s placeholders for `event`. The active trace (the
 * transition's) is kept with it, as `writeOutboxEvents` keeps it.
 */
export function outboxEventValues(event: OutboxEventInput): Record<string, unknown> {
  return placeholderValues(
    outboxEvents,
    outboxRowOf(event, activeTraceParent()),
    EVENT_PLACEHOLDERS,
  );
}

function outboxRowOf(
  event: OutboxEventInput,
  traceParent: string | null,
): Pick<typeof outboxEvents.$inferInsert, (typeof OUTBOX_ROW_KEYS)[number]> {
  return {
    id: newId(),
    organizationId: event.organizationId,
    type: event.type,
    storyId: event.storyId,
    sequence: event.sequence,
    previousStatus: event.previousStatus,
    createdAt: event.at,
    traceParent,
  };
}

/**
 * Writes several events in one statement (the scheduler's batch); their ids in order. The
 * active trace (the transition's) is kept with each for the relay, the fan-out and the deliveries.
 */
export async function writeOutboxEvents(
  tx: Queryable,
  events: OutboxEventInput[],
): Promise<string[]> {
  if (events.length === 0) return [];
  const traceParent = activeTraceParent();
  const rows = events.map((event) => outboxRowOf(event, traceParent));
  // Prepared: without, the driver asks the server for the parameters' types first, a round trip.
  await tx.insert(outboxEvents).values(rows).prepare("workspace_outbox_events").execute();
  return rows.map((row) => row.id);
}
