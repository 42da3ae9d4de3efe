import type { EventBus } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import { outboxEvents } from "@newsroom/shared/db/schema";
import { uuidArray } from "@newsroom/shared/db/sql-arrays";
import type { StoryEvent } from "@newsroom/shared/events";
import { log } from "@newsroom/shared/log";
import { outboxLag } from "@newsroom/shared/metrics";
import {
  contextFromTraceParent,
  outsideAnyTrace,
  withParent,
} from "@newsroom/shared/tracing/index";
import { and, asc, isNull, min, sql } from "drizzle-orm";
import { relayStatusOnce, STATUS_RELAY_BATCH } from "../status/outbox-relay.ts";

const BATCH = 100;

export interface RelayPass {
  published: number;
  duplicates: number;
  /** Age of the oldest unpublished event when the pass read the outbox (0 when none). */
  lagSeconds: number;
}

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
export async function relayOnce(db: Db, bus: EventBus, hooks: RelayHooks = {}): Promise<RelayPass> {
  const rows = await db
    .select()
    .from(outboxEvents)
    .where(isNull(outboxEvents.publishedAt))
    .orderBy(asc(outboxEvents.createdAt))
    .limit(BATCH)
    // Prepared, as every pass (each kick, each poll) sends it: one round trip, not two.
    .prepare("workspace_outbox_unpublished")
    .execute();
  // Rows come oldest first: the first is the oldest unpublished event when the pass began.
  const lagSeconds = rows[0] ? ageInSeconds(rows[0].createdAt) : 0;
  // Published together: the bus client sends them in this order without waiting for each
  // acknowledgement, and the batch is marked only once the bus accepted every one. Each publish
  // joins the trace of the transition that wrote its event.
  const results = await Promise.all(
    rows.map((row) => {
      const event: StoryEvent = {
        id: row.id,
        type: row.type,
        created_at: row.createdAt.toISOString(),
        data: { organization_id: row.organizationId, story_id: row.storyId },
      };
      return withParent(contextFromTraceParent(row.traceParent), () => bus.publish(event));
    }),
  );
  const duplicates = results.filter((result) => result.duplicate).length;
  await hooks.afterPublish?.();
  if (rows.length > 0) {
    // Prepared too: the ids travel as one array, so the statement's text is the same whatever
    // the pass's size.
    await db
      .update(outboxEvents)
      .set({ publishedAt: new Date() })
      .where(
        and(
          sql`${outboxEvents.id} = any(${uuidArray(rows.map((row) => row.id))})`,
          isNull(outboxEvents.publishedAt),
        ),
      )
      .prepare("workspace_outbox_published")
      .execute();
  }
  return { published: rows.length, duplicates, lagSeconds };
}

function ageInSeconds(createdAt: Date): number {
  return Math.max(0, (Date.now() - createdAt.getTime()) / 1000);
}

/**
 * Age of the oldest unpublished event, read on its own: after a failed pass, so that a relay
 * that cannot publish shows a lag that keeps growing.
 */
async function measureLag(db: Db): Promise<number> {
  const [row] = await db
    .select({ oldest: min(outboxEvents.createdAt) })
    .from(outboxEvents)
    .where(isNull(outboxEvents.publishedAt));
  return row?.oldest ? ageInSeconds(new Date(row.oldest)) : 0;
}

export interface OutboxRelay {
  /** Asks for a pass over the story outbox now (after a transition commits). */
  kick(): void;
  /** Asks for a pass over the status page's outbox now (after an incident is written). */
  kickStatus(): void;
  stop(): Promise<void>;
}

/**
 * Runs the relay every `intervalMs` over both outboxes, and whenever kicked over the one
 * kicked, one pass at a time. A transition's pass reads only the story outbox: a read of the
 * other is a round trip the event's way to the bus would wait for. Each story pass sets
 * `outbox_lag_seconds` from its own read; a failed pass measures it with a query of its own.
 */
export function startOutboxRelay(db: Db, bus: EventBus, intervalMs = 1_000): OutboxRelay {
  let running: Promise<void> | null = null;
  const wanted = { stories: false, status: false };
  let stopped = false;
  const pass = (which: { stories: boolean; status: boolean }) => {
    if (stopped) return;
    wanted.stories ||= which.stories;
    wanted.status ||= which.status;
    if (running) return;
    // A kick comes from a transition's request: the pass is none of that request's work.
    running = outsideAnyTrace(async () => {
      do {
        const { stories, status } = wanted;
        wanted.stories = false;
        wanted.status = false;
        if (stories) {
          try {
            const { published, lagSeconds } = await relayOnce(db, bus);
            if (published === BATCH) wanted.stories = true;
            outboxLag.set(lagSeconds);
          } catch (error) {
            log.warn("outbox relay pass failed; will retry", {
              error: error instanceof Error ? error.message : String(error),
            });
            await measureLag(db).then(
              (lagSeconds) => outboxLag.set(lagSeconds),
              () => {},
            );
          }
        }
        // The status page's events (incidents and their updates), kept in a table of their own:
        // passed on even while the story outbox's pass fails.
        if (status) {
          try {
            if ((await relayStatusOnce(db, bus)) === STATUS_RELAY_BATCH) wanted.status = true;
          } catch (error) {
            log.warn("status outbox relay pass failed; will retry", {
              error: error instanceof Error ? error.message : String(error),
            });
          }
        }
      } while ((wanted.stories || wanted.status) && !stopped);
      running = null;
    });
  };
  const both = () => pass({ stories: true, status: true });
  const timer = setInterval(both, intervalMs);
  both();
  return {
    kick: () => pass({ stories: true, status: false }),
    kickStatus: () => pass({ stories: false, status: true }),
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
