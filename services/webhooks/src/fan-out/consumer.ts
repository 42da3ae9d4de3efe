import { Batcher } from "@newsroom/shared/batch";
import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import { type StoryEvent, WEBHOOK_EVENT_TYPES } from "@newsroom/shared/events";
import { log } from "@newsroom/shared/log";
import { activeTraceParent } from "@newsroom/shared/tracing/index";
import { type FanOutResult, fanOutEvents, isWellFormedStoryEvent } from "./service.ts";
import type { FanOutClaimer } from "./store.ts";

/** The durable consumer name: every replica shares it, so each event is handled once. */
export const FAN_OUT_CONSUMER = "webhooks-fanout";
/** Events per fan-out statement at most: small enough that deliveries start early. */
const FAN_OUT_BATCH = 100;

export interface FanOutHooks {
  /** New deliveries were left unclaimed: the worker may look now rather than at its next poll. */
  onDeliveries(): void;
  /** The dispatcher of this process: each fan-out statement may claim for it (`FanOutClaimer`). */
  claimer?: FanOutClaimer;
}

/**
 * Consumes story events from the bus: JetStream in distributed mode, the
 * in-process bus when embedded. A story event is acked once its deliveries are written and it
 * is recorded as fanned out; a failure leaves it unacked, so the bus delivers it again.
 * Events that arrive while a fan-out statement runs go together in the next one (the
 * bus hands over up to a batch at once); the batch's statements run under the span of the message
 * that started it, each event's deliveries join the trace of its own message. Malformed messages are dropped (acked) with a warning.
 */
export function startFanOutConsumer(
  db: Db,
  bus: EventBus,
  hooks: FanOutHooks,
  durable = FAN_OUT_CONSUMER,
): Promise<Subscription> {
  // Each event goes with the trace its message is handled under: the batch's statement runs
  // under the first message's span, but every event's deliveries join their own.
  const fanOut = new Batcher<{ event: StoryEvent; traceParent: string | null }, FanOutResult>(
    (items) =>
      fanOutEvents(
        db,
        items.map((item) => item.event),
        items.map((item) => item.traceParent),
        hooks.claimer,
      ),
    { maxBatch: FAN_OUT_BATCH },
  );
  return bus.subscribe(
    async (event) => {
      if (!isWellFormedStoryEvent(event)) {
        log.warn("dropping a malformed story event", { event_id: idOf(event) });
        return;
      }
      const result = await fanOut.submit({ event, traceParent: activeTraceParent() });
      if (result.created > result.claimed) hooks.onDeliveries();
    },
    // As many events at once as one fan-out statement takes, so that they share it.
    { durable, types: [...WEBHOOK_EVENT_TYPES], concurrency: FAN_OUT_BATCH },
  );
}

function idOf(event: unknown): unknown {
  return (event as { id?: unknown } | null)?.id;
}
