import type { BusEvent } from "../events.ts";

export type EventHandler = (event: BusEvent) => Promise<void>;

export interface Subscription {
  stop(): Promise<void>;
}

export interface SubscribeOptions {
  /**
   * A durable consumer name: every subscriber with the same name shares one stream of events
   * (each event handled once by one of them). Subscribers with different names each see all.
   */
  durable: string;
  /** Only these event types (default: all). */
  types?: readonly string[];
  /** Start with events published after subscribing (default) or with every retained event. */
  from?: "new" | "all";
  /**
   * Events handed to this subscriber's handler at once (default 1: one after the other). The
   * in-process bus hands over every event at once whatever this says; JetStream hands over at
   * most this many, each acked when its own handler resolves. A handler that batches its writes
   * (the webhook fan-out) needs several at once to have anything to batch.
   */
  concurrency?: number;
  /** Every subscriber sees every event (cache invalidation on each replica); nothing is acked. */
  broadcast?: boolean;
  /**
   * Called when the subscription was made again after its consumer or stream was gone: events
   * published meanwhile were not seen (a cache should forget what it kept).
   */
  onResubscribe?: () => void;
}

/**
 * The event bus: JetStream in production, in-process when embedded. Delivery is at least once:
 * a handler that throws gets the event again later; handlers must be idempotent.
 */
export interface EventBus {
  readonly kind: "jetstream" | "memory";
  /** Publishes with the event id as the deduplication id. Resolves once the bus accepted it. */
  publish(event: BusEvent): Promise<{ duplicate: boolean }>;
  subscribe(handler: EventHandler, options: SubscribeOptions): Promise<Subscription>;
  close(): Promise<void>;
}

export async function openBus(
  natsUrl: string | undefined,
  options: { stream?: string; subjectPrefix?: string } = {},
): Promise<EventBus> {
  if (!natsUrl) {
    const { MemoryBus } = await import("./memory.ts");
    return new MemoryBus();
  }
  const { JetStreamBus } = await import("./jetstream.ts");
  return JetStreamBus.connect(natsUrl, options);
}
