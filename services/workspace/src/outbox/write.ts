import type { Queryable } from "@newsroom/shared/db/index";
import { outboxEvents, type StoryStatus } from "@newsroom/shared/db/schema";
import type { WebhookEventType } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { activeTraceParent } from "@newsroom/shared/tracing/index";

export interface OutboxEventInput {
  organizationId: string;
  type: WebhookEventType;
  storyId: string;
  at: Date;
  /** The story's event counter after this event (see `stories.event_sequence`). */
  sequence: number;
  previousStatus: StoryStatus;
}

/** Writes an event to the outbox; call it inside the transaction that changes the story. */
export async function writeOutboxEvent(tx: Queryable, event: OutboxEventInput): Promise<string> {
  const [id] = await writeOutboxEvents(tx, [event]);
  return id!;
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
  const rows = events.map((event) => ({
    id: newId(),
    organizationId: event.organizationId,
    type: event.type,
    storyId: event.storyId,
    sequence: event.sequence,
    previousStatus: event.previousStatus,
    createdAt: event.at,
    traceParent,
  }));
  // Prepared: without, the driver asks the server for the parameters' types first, a round trip.
  await tx.insert(outboxEvents).values(rows).prepare("workspace_outbox_events").execute();
  return rows.map((row) => row.id);
}
