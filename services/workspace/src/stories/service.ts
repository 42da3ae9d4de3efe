import { DEFAULT_SCHEDULE_MIN_LEAD_SECONDS } from "@newsroom/shared/config-variables";
import type { Db, Queryable } from "@newsroom/shared/db/index";
import {
  approvalDecisions,
  type StoryType,
  stories,
  storyTopics,
  storyVersions,
  topics,
} from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid, newId } from "@newsroom/shared/ids";
import type { StoryOut } from "@newsroom/shared/records";
import type { StoryBody } from "@newsroom/shared/story-body";
import {
  type StoryRow,
  storyRecordOf,
  storyRecordReturning,
  toStoryOut,
} from "@newsroom/shared/story-records";
import { and, eq, inArray, sql } from "drizzle-orm";
import { writeOutboxEvent } from "../outbox/write.ts";
import { findOrganization } from "../resolve.ts";
import { checkPublishAtLead, parsePublishAt } from "./publish-at.ts";
import {
  checkTransition,
  NEW_VERSION_ALLOWED,
  type StoryAction,
  statusAfterNewVersion,
} from "./state-machine.ts";

export interface StoryCreateInput {
  type: StoryType;
  slug: string;
  title: string;
  summary?: string | null;
  body?: StoryBody;
  topics?: string[];
  external_url?: string | null;
  featured?: boolean;
  status?: "draft" | "ai_generated";
}

function topicName(slug: string): string {
  return slug
    .split("-")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}

/** The organization's topics with these slugs, created when missing. */
export async function ensureTopics(
  tx: Queryable,
  organizationId: string,
  slugs: string[],
): Promise<{ id: string; slug: string }[]> {
  if (slugs.length === 0) return [];
  await tx
    .insert(topics)
    .values(slugs.map((slug) => ({ id: newId(), organizationId, slug, name: topicName(slug) })))
    .onConflictDoNothing();
  return tx
    .select({ id: topics.id, slug: topics.slug })
    .from(topics)
    .where(and(eq(topics.organizationId, organizationId), inArray(topics.slug, slugs)));
}

/** Creates a story with version 1 in `draft` (or `ai_generated`). */
export async function createStory(
  db: Db,
  orgIdOrSlug: string,
  input: StoryCreateInput,
): Promise<StoryOut> {
  const org = await findOrganization(db, orgIdOrSlug);
  return db.transaction(async (tx) => {
    const [story] = await tx
      .insert(stories)
      .values({
        id: newId(),
        organizationId: org.id,
        type: input.type,
        slug: input.slug,
        status: input.status ?? "draft",
        currentVersion: 1,
        externalUrl: input.external_url ?? null,
        featured: input.featured ?? false,
      })
      .onConflictDoNothing({ target: [stories.organizationId, stories.slug] })
      .returning();
    if (!story) {
      throw new ApiError("conflict", "A story with this slug exists.", {
        fields: [{ field: "slug", reason: "taken" }],
      });
    }
    const version = { title: input.title, summary: input.summary ?? null };
    await tx.insert(storyVersions).values({
      id: newId(),
      storyId: story.id,
      version: 1,
      ...version,
      body: input.type === "in_the_news" ? [] : (input.body ?? []),
    });
    const storyTopicRows = await ensureTopics(tx, org.id, input.topics ?? []);
    if (storyTopicRows.length > 0) {
      await tx
        .insert(storyTopics)
        .values(storyTopicRows.map((topic) => ({ storyId: story.id, topicId: topic.id })));
    }
    return toStoryOut(
      story,
      version,
      storyTopicRows.map((topic) => topic.slug),
    );
  });
}

/**
 * Which organization's story a command may change: one organization's, or any (`null`: the
 * internal API, whose path names a story by its id alone; the lock reads the organization with
 * the story instead of a read of its own beforehand).
 */
export type StoryScope = string | null;

/**
 * Locks the story for the command's transaction. Prepared (kept by each connection once used):
 * an unprepared statement with parameters costs the driver a round trip of its own before it is
 * sent, to ask the server for their types; a transition's statements are the hot path of every
 * event.
 */
async function lockStory(tx: Queryable, scope: StoryScope, storyId: string): Promise<StoryRow> {
  if (!isUuid(storyId)) throw new ApiError("not_found", "No such story.");
  const byId = eq(stories.id, storyId);
  const [row] = await tx
    .select()
    .from(stories)
    .where(scope === null ? byId : and(eq(stories.organizationId, scope), byId))
    .for("update")
    .prepare("workspace_lock_story")
    .execute();
  if (!row) throw new ApiError("not_found", "No such story.");
  return row;
}

export interface StoryVersionInput {
  title: string;
  summary?: string | null;
  body?: StoryBody;
  /**
   * The version the writer started from: when another version was written meanwhile, nothing
   * is written and the answer is a conflict (checked under the story's lock).
   */
  base_version?: number;
  /** The story's own fields, changed with the version when given. */
  topics?: string[];
  featured?: boolean;
  external_url?: string | null;
}

/** Writes a new version; an approved or scheduled story goes back to draft. */
export async function addStoryVersion(
  db: Db,
  scope: StoryScope,
  storyId: string,
  input: StoryVersionInput,
): Promise<StoryOut> {
  return db.transaction(async (tx) => {
    const row = await lockStory(tx, scope, storyId);
    if (!NEW_VERSION_ALLOWED.includes(row.status)) {
      throw new ApiError(
        "invalid_transition",
        `A story in ${row.status} cannot take a new version.`,
      );
    }
    if (input.base_version !== undefined && input.base_version !== row.currentVersion) {
      throw new ApiError(
        "conflict",
        `Version ${row.currentVersion} was written after version ${input.base_version}, which this edit started from.`,
        { fields: [{ field: "base_version", reason: "stale" }] },
      );
    }
    if (input.topics !== undefined) {
      const topicRows = await ensureTopics(tx, row.organizationId, input.topics);
      await tx.delete(storyTopics).where(eq(storyTopics.storyId, row.id));
      if (topicRows.length > 0) {
        await tx
          .insert(storyTopics)
          .values(topicRows.map((topic) => ({ storyId: row.id, topicId: topic.id })));
      }
    }
    const version = (row.currentVersion ?? 0) + 1;
    await tx.insert(storyVersions).values({
      id: newId(),
      storyId: row.id,
      version,
      title: input.title,
      summary: input.summary ?? null,
      body: row.type === "in_the_news" ? [] : (input.body ?? []),
    });
    const [written] = await tx
      .update(stories)
      .set({
        currentVersion: version,
        status: statusAfterNewVersion(row.status),
        // A scheduled story goes back to draft: its schedule goes with it.
        publishAt: null,
        publishFailure: null,
        featured: input.featured ?? row.featured,
        externalUrl:
          row.type === "in_the_news" && input.external_url !== undefined
            ? input.external_url
            : row.externalUrl,
        updatedAt: new Date(),
      })
      .where(eq(stories.id, row.id))
      .returning(storyRecordReturning);
    return storyRecordOf(written!);
  });
}

/** The row of a person's approval decision on one version of a story. */
export function approvalDecisionRow(input: {
  organizationId: string;
  storyId: string;
  version: number | null;
  decision: "approved" | "rejected";
  actorRole: string;
  personId: string | null;
  /** The application the person decided through (approvals through the API). */
  oauthClientId?: string | null;
  note?: string | null;
  decidedAt: Date;
}): typeof approvalDecisions.$inferInsert {
  return {
    id: newId(),
    organizationId: input.organizationId,
    storyId: input.storyId,
    version: input.version,
    decision: input.decision,
    actorType: "person",
    actorRole: input.actorRole,
    personId: input.personId,
    oauthClientId: input.oauthClientId ?? null,
    note: input.note?.trim() || null,
    decidedAt: input.decidedAt,
  };
}

export interface TransitionInput {
  action: StoryAction;
  note?: string | null;
  actor_role?: string;
  /** `schedule` only: when the scheduler publishes the story (ISO 8601 with an offset). */
  publish_at?: string | null;
}

/** Who acts, when a signed-in person does (the web app); recorded on the approval decision. */
export interface TransitionActor {
  personId: string;
  /** Set when the person decided through an application they allowed (OAuth). */
  oauthClientId?: string;
}

export interface TransitionHooks {
  /** Runs inside the transaction, its statements sent with the story's and the outbox row's. */
  withStoryWrite?: (tx: Queryable) => Promise<void>;
  /** Runs after commit when an event was written (the relay's kick). */
  onEvent?: () => void;
  /** The least lead of a schedule in seconds (SCHEDULE_MIN_LEAD_SECONDS); one minute unless set. */
  minLeadSeconds?: number;
}

/**
 * Applies an action. The story, the approval decision and the outbox event commit together or
 * not at all.
 */
export async function transitionStory(
  db: Db,
  scope: StoryScope,
  storyId: string,
  input: TransitionInput,
  hooks: TransitionHooks = {},
  actor?: TransitionActor,
): Promise<StoryOut> {
  const actorRole = input.actor_role ?? "owner";
  const publishAt = input.action === "schedule" ? parsePublishAt(input.publish_at) : null;
  const { story, evented } = await db.transaction(async (tx) => {
    const row = await lockStory(tx, scope, storyId);
    const check = checkTransition(row, input.action, { note: input.note, actorRole });
    if (!check.ok) {
      throw check.field
        ? new ApiError("validation_failed", check.reason, {
            fields: [{ field: check.field, reason: "invalid", message: check.reason }],
          })
        : new ApiError("invalid_transition", check.reason);
    }
    const { rule } = check;
    if (publishAt) {
      const minLead = hooks.minLeadSeconds ?? DEFAULT_SCHEDULE_MIN_LEAD_SECONDS;
      checkPublishAtLead(publishAt, await databaseNow(tx, row.id), minLead);
    }
    const now = new Date();
    // The story is locked: its counter rises by one per event, in the order events commit.
    const sequence = rule.event ? row.eventSequence + 1 : row.eventSequence;
    // Sent together, not one after the other: the connection pipelines them, so the writes take
    // one round trip; the transaction still commits them all or none. Like the lock, each is a
    // prepared statement (see lockStory).
    const [[written]] = await Promise.all([
      tx
        .update(stories)
        .set({
          status: rule.to,
          eventSequence: sequence,
          approvedVersion: rule.decision === "approved" ? row.currentVersion : row.approvedVersion,
          publishedAt: rule.to === "published" ? now : row.publishedAt,
          scheduledAt: rule.to === "scheduled" ? now : row.scheduledAt,
          // Set by schedule; every other transition of a person clears it (the scheduler's own
          // publication keeps it: scheduler.ts).
          publishAt,
          scheduledBy: publishAt ? (actor?.personId ?? null) : null,
          publishFailure: null,
          updatedAt: now,
        })
        .where(eq(stories.id, row.id))
        .returning(storyRecordReturning)
        .prepare("workspace_transition_story")
        .execute(),
      rule.decision
        ? tx
            .insert(approvalDecisions)
            .values(
              approvalDecisionRow({
                organizationId: row.organizationId,
                storyId: row.id,
                version: row.currentVersion,
                decision: rule.decision,
                actorRole,
                personId: actor?.personId ?? null,
                oauthClientId: actor?.oauthClientId ?? null,
                note: input.note,
                decidedAt: now,
              }),
            )
            .prepare("workspace_approval_decision")
            .execute()
        : null,
      hooks.withStoryWrite?.(tx),
      rule.event
        ? writeOutboxEvent(tx, {
            organizationId: row.organizationId,
            type: rule.event,
            storyId: row.id,
            at: now,
            sequence,
            previousStatus: row.status,
          })
        : null,
    ]);
    return { story: storyRecordOf(written!), evented: rule.event !== null };
  });
  if (evented) hooks.onEvent?.();
  return story;
}

/** The database's clock (read beside a story): the one the scheduler decides due-ness by. */
async function databaseNow(tx: Queryable, storyId: string): Promise<Date> {
  const [row] = await tx
    .select({ now: sql<Date | string>`now()` })
    .from(stories)
    .where(eq(stories.id, storyId));
  return new Date(row!.now);
}
