import type { EventBus } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import { outboxEvents } from "@newsroom/shared/db/schema";
import type { StoryEvent } from "@newsroom/shared/events";
import { log } from "@newsroom/shared/log";
import { outboxLag } from "@newsroom/shared/metrics";
import { and, asc, inArray, isNull, min } from "drizzle-orm";

const BATCH = 100;

export interface RelayHooks {
  /** Runs after the bus accepted a batch and before it is marked sent (fault tests). */
  afterPublish?: () => Promise<void> | void;
}

/**
 * Publishes unsent outbox rows with the event id as `Nats-Msg-Id`, then marks them sent. No
 * transaction is open while the bus is called: the batch is read, published, and marked in a
 * statement of its own. Replicas may read the same rows and publish them twice; the bus drops the
 * second copy by its id (within its two-minute window), and past that window the webhooks service
 * fans each event out once (deliveries are unique on endpoint and event). A crash after
 * publishing and before marking republishes the same ids in the same way.
 */
export async function relayOnce(
  db: Db,
  bus: EventBus,
  hooks: RelayHooks = {},
): Promise<{ published: number; duplicates: number }> {
  const rows = await db
    .select()
    .from(outboxEvents)
    .where(isNull(outboxEvents.publishedAt))
    .orderBy(asc(outboxEvents.createdAt))
    .limit(BATCH);
  let duplicates = 0;
  for (const row of rows) {
    const event: StoryEvent = {
      id: row.id,
      type: row.type,
      created_at: row.createdAt.toISOString(),
      data: { organization_id: row.organizationId, story_id: row.storyId },
    };
    const result = await bus.publish(event);
    if (result.duplicate) duplicates += 1;
  }
  await hooks.afterPublish?.();
  if (rows.length > 0) {
    await db
      .update(outboxEvents)
      .set({ publishedAt: new Date() })
      .where(
        and(
          inArray(
            outboxEvents.id,
            rows.map((row) => row.id),
          ),
          isNull(outboxEvents.publishedAt),
        ),
      );
  }
  return { published: rows.length, duplicates };
}

/** Age of the oldest unpublished event, for the `outbox_lag_seconds` gauge. */
async function measureLag(db: Db): Promise<void> {
  const [row] = await db
    .select({ oldest: min(outboxEvents.createdAt) })
    .from(outboxEvents)
    .where(isNull(outboxEvents.publishedAt));
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
  outboxLag.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000));
}

export interface OutboxRelay {
  /** Asks for a pass now (after a transition commits). */
  kick(): void;
  stop(): Promise<void>;
}

/** Runs the relay every `intervalMs` and whenever kicked, one pass at a time. */
export function startOutboxRelay(db: Db, bus: EventBus, intervalMs = 1_000): OutboxRelay {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const pass = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          const { published } = await relayOnce(db, bus);
          if (published === BATCH) again = true;
          await measureLag(db);
        } catch (error) {
          log.warn("outbox relay pass failed; will retry", {
            error: error instanceof Error ? error.message : String(error),
          });
        }
      } while (again && !stopped);
      running = null;
    })();
  };
  const timer = setInterval(pass, intervalMs);
  pass();
  return {
    kick: pass,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
