import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream";
import { connect, headers, type NatsConnection, nanos } from "@nats-io/transport-node";
import type { BusEvent } from "../events.ts";
import type { EventBus, EventHandler, SubscribeOptions, Subscription } from "./index.ts";
import { inConsumeSpan, inPublishSpan } from "./tracing.ts";

export const STREAM_NAME = "STORY_EVENTS";
const DUPLICATE_WINDOW_MS = 2 * 60_000;
const RETENTION_MS = 7 * 24 * 3_600_000;
/**
 * How long an event handed to a subscriber may go unacknowledged before JetStream hands it out
 * again: what a subscriber that died mid-event costs. Handlers take milliseconds.
 */
const ACK_WAIT_MS = 10_000;
const REDELIVERY_DELAY_MS = 2_000;
const RESUBSCRIBE_DELAY_MS = 1_000;
const GONE = new Set(["consumer_not_found", "consumer_deleted", "stream_not_found"]);

export interface JetStreamBusOptions {
  /** Stream name (default STORY_EVENTS). */
  stream?: string;
  /** Prefixed to every subject; lets tests share a server without seeing each other. */
  subjectPrefix?: string;
}

/**
 * The bus on NATS JetStream. Subjects are the event types (`story.published`, ...); the event id
 * goes in `Nats-Msg-Id` so JetStream drops a republished duplicate within its window.
 */
export class JetStreamBus implements EventBus {
  readonly kind = "jetstream";
  private readonly subscriptions = new Set<Subscription>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly prefix: string,
  ) {}

  static async connect(url: string, options: JetStreamBusOptions = {}): Promise<JetStreamBus> {
    const nc = await connect({
      servers: url,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      name: "newsroom-service",
    });
    const jsm = await jetstreamManager(nc);
    const stream = options.stream ?? STREAM_NAME;
    const prefix = options.subjectPrefix ?? "";
    await ensureStream(jsm, stream, prefix);
    return new JetStreamBus(nc, jetstream(nc), jsm, stream, prefix);
  }

  async publish(event: BusEvent): Promise<{ duplicate: boolean }> {
    const subject = this.prefix + event.type;
    const send = () =>
      inPublishSpan(event, subject, headers, (traceHeaders) =>
        this.js.publish(subject, JSON.stringify(event), {
          msgID: event.id,
          timeout: 5_000,
          headers: traceHeaders,
        }),
      );
    try {
      return { duplicate: (await send()).duplicate };
    } catch (error) {
      // A server that came back without its store has no stream: make it again, once.
      if (!(await this.restoreStream())) throw error;
      return { duplicate: (await send()).duplicate };
    }
  }

  async subscribe(handler: EventHandler, options: SubscribeOptions): Promise<Subscription> {
    // One server-side subject filter (servers before 2.10 take only one); several types are
    // filtered here, and the others acked unseen.
    const types = options.types;
    const filter = types?.length === 1 ? this.prefix + types[0] : `${this.prefix}>`;
    const wanted = (event: BusEvent) => !types || types.includes(event.type);
    const deliverPolicy = options.from === "all" ? DeliverPolicy.All : DeliverPolicy.New;
    const concurrency = Math.max(1, options.concurrency ?? 1);
    const open = async () => {
      const consumer = options.broadcast
        ? await this.js.consumers.get(this.stream, {
            filter_subjects: filter,
            deliver_policy: deliverPolicy,
          })
        : await this.durableConsumer(options.durable, filter, deliverPolicy);
      return consumer.consume({ max_messages: Math.max(64, concurrency) });
    };
    let messages = await open();
    let stopped = false;
    // The client keeps polling a consumer that is gone; end the consumption so it is remade.
    const watch = async (current: typeof messages) => {
      for await (const status of current.status()) {
        if (GONE.has(status.type)) {
          await current.close().catch(() => undefined);
          return;
        }
      }
    };
    void watch(messages).catch(() => undefined);
    const handle = async (message: JsMsg, event: BusEvent) => {
      try {
        if (wanted(event)) {
          await inConsumeSpan(event, message.subject, options.durable, message.headers, () =>
            handler(event),
          );
        }
        if (!options.broadcast) message.ack();
      } catch {
        if (!options.broadcast) message.nak(REDELIVERY_DELAY_MS);
      }
    };
    // Up to `concurrency` handlers run at once, started in the stream's order.
    const drain = async (current: typeof messages) => {
      const running = new Set<Promise<void>>();
      try {
        for await (const message of current) {
          let event: BusEvent;
          try {
            event = message.json<BusEvent>();
          } catch {
            message.term();
            continue;
          }
          const handled: Promise<void> = handle(message, event).finally(() =>
            running.delete(handled),
          );
          running.add(handled);
          if (running.size >= concurrency) await Promise.race(running);
        }
      } finally {
        await Promise.allSettled(running);
      }
    };
    // The consumption ends when its consumer or stream is gone (a server restarted without its
    // store): make them again and go on, until stopped.
    const loop = (async () => {
      while (!stopped) {
        await drain(messages).catch(() => undefined);
        if (stopped) return;
        await Bun.sleep(RESUBSCRIBE_DELAY_MS);
        try {
          await this.restoreStream();
          messages = await open();
          void watch(messages).catch(() => undefined);
          options.onResubscribe?.();
        } catch {
          // The server is still away; try again after the delay.
        }
      }
    })();
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        this.subscriptions.delete(subscription);
        await messages.close().catch(() => undefined);
        await loop.catch(() => undefined);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Makes the stream again when the server lost it; true when it had to. */
  private async restoreStream(): Promise<boolean> {
    try {
      await this.jsm.streams.info(this.stream);
      return false;
    } catch {
      await ensureStream(this.jsm, this.stream, this.prefix);
      return true;
    }
  }

  async close(): Promise<void> {
    for (const subscription of [...this.subscriptions]) await subscription.stop();
    await this.nc.drain().catch(() => undefined);
  }

  private async durableConsumer(name: string, filter: string, deliverPolicy: DeliverPolicy) {
    const existing = await this.jsm.consumers.info(this.stream, name).catch(() => null);
    if (existing) {
      // A consumer an earlier release made keeps its settings: bring its ack wait to this one's.
      if (existing.config.ack_wait !== nanos(ACK_WAIT_MS)) {
        await this.jsm.consumers.update(this.stream, name, { ack_wait: nanos(ACK_WAIT_MS) });
      }
    } else {
      await this.jsm.consumers.add(this.stream, {
        durable_name: name,
        ack_policy: AckPolicy.Explicit,
        ack_wait: nanos(ACK_WAIT_MS),
        deliver_policy: deliverPolicy,
        filter_subject: filter,
        max_ack_pending: 1_000,
      });
    }
    return this.js.consumers.get(this.stream, name);
  }
}

const SUBJECT_ROOTS = [
  "story",
  "webhook",
  "webhook_endpoint",
  "site",
  "asset",
  "preview_link",
  "webhook_delivery",
  "cache",
  "data",
  "status",
];

/** Creates the stream, or adds the subjects an older deployment's stream lacks. */
async function ensureStream(jsm: JetStreamManager, name: string, prefix: string): Promise<void> {
  const subjects = SUBJECT_ROOTS.map((root) => `${prefix}${root}.>`);
  const config = {
    name,
    subjects,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    max_age: nanos(RETENTION_MS),
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
  };
  let existing: Awaited<ReturnType<typeof jsm.streams.info>> | null = null;
  try {
    existing = await jsm.streams.info(name);
  } catch {
    await jsm.streams.add(config);
    return;
  }
  const missing = subjects.filter((subject) => !existing.config.subjects?.includes(subject));
  if (missing.length > 0) {
    await jsm.streams.update(name, {
      ...existing.config,
      subjects: [...(existing.config.subjects ?? []), ...missing],
    });
  }
}
