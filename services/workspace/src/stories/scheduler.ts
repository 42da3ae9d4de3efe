import type { Db, Queryable } from "@newsroom/shared/db/index";
import { stories } from "@newsroom/shared/db/schema";
import { log } from "@newsroom/shared/log";
import type { Mailer } from "@newsroom/shared/mailer";
import type { StoryRow } from "@newsroom/shared/story-records";
import { and, asc, eq, inArray, lte, min, notInArray, sql } from "drizzle-orm";
import { auditAll } from "../audit.ts";
import { writeOutboxEvents } from "../outbox/write.ts";
import { notifyPublicationFailed } from "./publication-failed-notice.ts";

/**
 * The scheduler: publishes scheduled stories at their `publish_at`. It runs in every workspace
 * replica (and in the embedded start); the database decides who publishes what, so each story is
 * published once however many replicas run:
 *
 * - Due-ness is the database's clock (`publish_at <= now()` in SQL): a process whose clock jumps
 *   decides nothing by it.
 * - A replica claims a batch of due stories with `FOR UPDATE SKIP LOCKED` and, in that one
 *   transaction, takes each `scheduled → publishing → published` (the row lock is the
 *   `publishing` step: no one else sees or takes the story meanwhile) with its `story.published`
 *   outbox event and an audit row. Another replica skips the locked rows and takes the next. A
 *   replica killed mid-way loses its connection, PostgreSQL rolls the transaction back and frees
 *   the rows, and the next pass of any replica publishes them.
 * - A story whose current version is not the approved one is not published (a new version sends a
 *   story back to draft and clears its schedule; this guards anything else): it goes to `failed`.
 * - A failed attempt (the database unreachable, say) is retried with backoff. A story still
 *   scheduled `lateLimitSeconds` after its time is not published any more: it goes to `failed`,
 *   with its reason, and the person who scheduled it is emailed.
 *
 * It wakes at the next `publish_at` by a timer (the delay read from the database's clock) and at
 * least every `pollMs`; a pass with nothing due is one indexed read.
 */
export interface SchedulerOptions {
  /** Seconds after `publish_at` within which a story is still published (SCHEDULE_LATE_LIMIT_SECONDS). */
  lateLimitSeconds: number;
  /** The longest sleep between passes. */
  pollMs?: number;
  /** After a story was published (the outbox relay's kick). */
  onEvent?: () => void;
  /** Null: the failure is logged and shown in the workspace, nobody is emailed. */
  mailer: Mailer | null;
  /** The web app's public base (APP_URL), for the email's link. */
  appUrl: string;
}

export const SCHEDULER_POLL_MS = 250;
/** Backoff after a failed pass: doubling from the first, up to the last. */
const BACKOFF_MS = { first: 250, max: 2_000 };
/** Backoff of one story whose publication failed while others went through. */
const STORY_BACKOFF_MS = { first: 1_000, max: 30_000 };

export type SchedulerOutcome =
  | { kind: "published"; storyId: string }
  | { kind: "failed"; storyId: string; organizationId: string; reason: string };

export interface Scheduler {
  /** Runs a pass now (tests; a schedule made in this process). */
  kick(): void;
  stop(): Promise<void>;
}

/** The failure the scheduler records when a story is still scheduled past the bound. */
function lateReason(lateLimitSeconds: number): string {
  return `Not published within ${durationInWords(lateLimitSeconds)} of its time (the database could not be reached, or no workspace process ran).`;
}

const NOT_APPROVED =
  "Not published: its current version is not the approved one. Approve it and schedule again.";

function durationInWords(seconds: number): string {
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? "" : "s"}`;
  return `${seconds} seconds`;
}

/** Due stories one transaction claims: two replicas split 50 due at once in about two rounds. */
export const SCHEDULER_BATCH = 20;

/**
 * Across organizations (labelled: the scheduler serves them all): claims up to `SCHEDULER_BATCH`
 * due scheduled stories, skipping those other replicas hold and those in `skip`, and publishes
 * each or records why not, in one transaction. Empty when nothing is due. `onClaim` learns the
 * stories' ids before anything is written (so a failure can be pinned on them).
 */
export async function publishDueStories(
  db: Db,
  lateLimitSeconds: number,
  skip: readonly string[] = [],
  onClaim: (storyIds: string[]) => void = () => {},
): Promise<SchedulerOutcome[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({
        story: stories,
        now: sql<Date | string>`now()`,
        late: sql<boolean>`${stories.publishAt} < now() - make_interval(secs => ${lateLimitSeconds})`,
      })
      .from(stories)
      .where(
        and(
          eq(stories.status, "scheduled"),
          lte(stories.publishAt, sql`now()`),
          skip.length > 0 ? notInArray(stories.id, [...skip]) : undefined,
        ),
      )
      .orderBy(asc(stories.publishAt), asc(stories.id))
      .limit(SCHEDULER_BATCH)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];
    onClaim(due.map((row) => row.story.id));
    const now = new Date(due[0]!.now);
    const outcomes: SchedulerOutcome[] = [];
    const toPublish: StoryRow[] = [];
    for (const { story, late } of due) {
      const approved =
        story.approvedVersion !== null && story.approvedVersion === story.currentVersion;
      if (late || !approved) {
        const reason = late ? lateReason(lateLimitSeconds) : NOT_APPROVED;
        await tx
          .update(stories)
          .set({ status: "failed", publishFailure: reason, updatedAt: now })
          .where(eq(stories.id, story.id));
        outcomes.push({
          kind: "failed",
          storyId: story.id,
          organizationId: story.organizationId,
          reason,
        });
      } else {
        toPublish.push(story);
      }
    }
    if (toPublish.length > 0) {
      // Each row is locked: its counter rises by one, as in a person's transition.
      await tx
        .update(stories)
        .set({
          status: "published",
          publishedAt: now,
          eventSequence: sql`${stories.eventSequence} + 1`,
          updatedAt: now,
        })
        .where(
          inArray(
            stories.id,
            toPublish.map((story) => story.id),
          ),
        );
      await writeOutboxEvents(
        tx,
        toPublish.map((story) => ({
          organizationId: story.organizationId,
          type: "story.published" as const,
          storyId: story.id,
          at: now,
          sequence: story.eventSequence + 1,
          previousStatus: "scheduled" as const,
        })),
      );
      for (const story of toPublish) outcomes.push({ kind: "published", storyId: story.id });
    }
    await auditAll(
      tx,
      outcomes.map((outcome) => ({
        organizationId: due.find((row) => row.story.id === outcome.storyId)!.story.organizationId,
        action: outcome.kind === "published" ? "story.publish" : "story.publish_failed",
        subjectId: outcome.storyId,
        actor: "scheduler",
      })),
    );
    return outcomes;
  });
}

/**
 * Across organizations (labelled): milliseconds from the database's now to the next scheduled
 * story's time (0 or less: one is due), or null when none is scheduled.
 */
export async function millisecondsToNextDue(db: Queryable): Promise<number | null> {
  const [row] = await db
    .select({
      ms: sql<
        string | number | null
      >`extract(epoch from (${min(stories.publishAt)} - now())) * 1000`,
    })
    .from(stories)
    .where(eq(stories.status, "scheduled"));
  return row?.ms === null || row?.ms === undefined ? null : Number(row.ms);
}

export function startScheduler(db: Db, options: SchedulerOptions): Scheduler {
  const pollMs = options.pollMs ?? SCHEDULER_POLL_MS;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  let failedPasses = 0;
  /** Stories whose own publication failed: when each may be tried again, and how often it failed. */
  const held = new Map<string, { until: number; failures: number }>();

  const wakeIn = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(pass, Math.max(0, ms));
  };

  /** Publishes every due story it can claim; then how long to sleep. */
  const publishDue = async (): Promise<number> => {
    const untilNext = await millisecondsToNextDue(db);
    if (untilNext === null) return pollMs;
    if (untilNext > 0) return Math.min(untilNext, pollMs);
    for (;;) {
      if (stopped) break;
      const now = performance.now();
      for (const [id, hold] of held) if (hold.until <= now) held.delete(id);
      const claim: { storyIds: string[] } = { storyIds: [] };
      let outcomes: SchedulerOutcome[];
      try {
        outcomes = await publishDueStories(
          db,
          options.lateLimitSeconds,
          [...held.keys()],
          (ids) => {
            claim.storyIds = ids;
          },
        );
      } catch (error) {
        if (claim.storyIds.length === 0) throw error;
        // These stories' transaction failed: hold them back a while, go on with the others.
        for (const id of claim.storyIds) holdBack(id, error);
        continue;
      }
      if (outcomes.length === 0) break;
      if (outcomes.some((outcome) => outcome.kind === "published")) options.onEvent?.();
      for (const outcome of outcomes) {
        held.delete(outcome.storyId);
        if (outcome.kind === "failed") {
          log.warn("scheduled story not published", {
            story_id: outcome.storyId,
            reason: outcome.reason,
          });
          await notifyPublicationFailed(db, options, outcome);
        }
      }
    }
    // What is still due is held by another replica or held back: look again shortly.
    return pollMs;
  };

  const holdBack = (storyId: string, error: unknown) => {
    const failures = (held.get(storyId)?.failures ?? 0) + 1;
    const delay = Math.min(STORY_BACKOFF_MS.max, STORY_BACKOFF_MS.first * 2 ** (failures - 1));
    held.set(storyId, { until: performance.now() + delay, failures });
    log.warn("publishing a scheduled story failed; will retry", {
      story_id: storyId,
      retry_in_ms: delay,
      error: error instanceof Error ? error.message : String(error),
    });
  };

  function pass() {
    timer = null;
    if (stopped || running) return;
    running = (async () => {
      let sleep: number;
      try {
        sleep = await publishDue();
        failedPasses = 0;
      } catch (error) {
        failedPasses += 1;
        sleep = Math.min(BACKOFF_MS.max, BACKOFF_MS.first * 2 ** (failedPasses - 1));
        log.warn("scheduler pass failed; will retry", {
          retry_in_ms: sleep,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      running = null;
      wakeIn(sleep);
    })();
  }

  pass();
  return {
    kick: () => {
      if (!running) wakeIn(0);
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
