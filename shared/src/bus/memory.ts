import type { BusEvent } from "../events.ts";
import type { EventBus, EventHandler, SubscribeOptions, Subscription } from "./index.ts";
import { inConsumeSpan, inPublishSpan, type TraceCarrier } from "./tracing.ts";

const DEDUPLICATION_WINDOW_MS = 120_000;
const REDELIVERY_DELAY_MS = 1_000;

interface Group {
  name: string;
  handlers: EventHandler[];
  types?: readonly string[];
  next: number;
}

/**
 * The in-process bus of the embedded mode. Same contract as JetStream: deduplication by event
 * id within a window, one handler per durable group, redelivery when a handler throws.
 */
export class MemoryBus implements EventBus {
  readonly kind = "memory";
  private readonly groups = new Map<string, Group>();
  private readonly seen = new Map<string, number>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private closed = false;

  async publish(event: BusEvent): Promise<{ duplicate: boolean }> {
    const now = Date.now();
    for (const [id, at] of this.seen) if (now - at > DEDUPLICATION_WINDOW_MS) this.seen.delete(id);
    if (this.seen.has(event.id)) return { duplicate: true };
    this.seen.set(event.id, now);
    const carrier = () => new Map<string, string>();
    return inPublishSpan(event, event.type, carrier, async (traceHeaders) => {
      for (const group of this.groups.values()) {
        if (group.types && !group.types.includes(event.type)) continue;
        this.deliver(group, event, traceHeaders);
      }
      return { duplicate: false };
    });
  }

  async subscribe(handler: EventHandler, options: SubscribeOptions): Promise<Subscription> {
    const name = options.broadcast ? `${options.durable}:${crypto.randomUUID()}` : options.durable;
    let group = this.groups.get(name);
    if (!group) {
      group = { name: options.durable, handlers: [], types: options.types, next: 0 };
      this.groups.set(name, group);
    }
    group.handlers.push(handler);
    const owner = group;
    return {
      stop: async () => {
        owner.handlers = owner.handlers.filter((h) => h !== handler);
        if (owner.handlers.length === 0) this.groups.delete(name);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.groups.clear();
  }

  private deliver(group: Group, event: BusEvent, traceHeaders?: TraceCarrier): void {
    if (this.closed || group.handlers.length === 0) return;
    const handler = group.handlers[group.next++ % group.handlers.length]!;
    queueMicrotask(() => {
      inConsumeSpan(event, event.type, group.name, traceHeaders, () => handler(event)).catch(() => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.deliver(group, event, traceHeaders);
        }, REDELIVERY_DELAY_MS);
        this.timers.add(timer);
      });
    });
  }
}
