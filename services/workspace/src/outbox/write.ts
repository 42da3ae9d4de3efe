import type { Queryable } from "@newsroom/shared/db/index";
import { outboxEvents, type StoryStatus } from "@newsroom/shared/db/schema";
import type { WebhookEventType } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { activeTraceParent } from "@newsroom/shared/tracing/index";

/**
 * Writes an event to the outbox; call it inside the transaction that changes the story. The
 * active trace (the transition's) is kept with it for the relay, the fan-out and the deliveries.
 */
export async function writeOutboxEvent(
  tx: Queryable,
  event: {
    organizationId: string;
    type: WebhookEventType;
    storyId: string;
    at: Date;
    /** The story's event counter after this event (see `stories.event_sequence`). */
    sequence: number;
    previousStatus: StoryStatus;
  },
): Promise<string> {
  const id = newId();
  await tx.insert(outboxEvents).values({
    id,
    organizationId: event.organizationId,
    type: event.type,
    storyId: event.storyId,
    sequence: event.sequence,
    previousStatus: event.previousStatus,
    createdAt: event.at,
    traceParent: activeTraceParent(),
  });
  return id;
}
