import { DEFAULT_SCHEDULE_MIN_LEAD_SECONDS } from "@newsroom/shared/config-variables";
import type { Db, Queryable } from "@newsroom/shared/db/index";
import {
  builtOnce,
  insertSelecting,
  placeholdersOf,
  placeholderValues,
  rowMapper,
} from "@newsroom/shared/db/prepared";
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
import { and, eq, getTableColumns, inArray, type SQL, sql } from "drizzle-orm";
import {
  type OutboxEventInput,
  outboxEventInsertFrom,
  outboxEventValues,
} from "../outbox/write.ts";
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
 * internal API, whose path names a story by its id alone; the story's read or lock reads the
 * organization with it instead of a read of its own beforehand).
 */
export type StoryScope = string | null;

/**
 * Locks the story for a new version's transaction (a transition reads it unlocked:
 * `readStoryToWrite`). Prepared (kept by each connection once used): an unprepared statement with
 * parameters costs the driver a round trip of its own before it is sent, to ask the server for
 * their types.
 */
async function lockStory(tx: Queryable, scope: StoryScope, storyId: string): Promise<StoryRow> {
  checkStoryId(storyId);
  const byId = eq(stories.id, storyId);
  const [row] = await tx
    .select()
    .from(stories)
    .where(scope === null ? byId : and(eq(stories.organizationId, scope), byId))
    .for("update")
    .prepare("workspace_lock_story")
    .execute();
  return found(row);
}

/** A story id that cannot name a story: 404, as for one that names none. */
function checkStoryId(storyId: string): void {
  if (!isUuid(storyId)) throw new ApiError("not_found", "No such story.");
}

/** The story read, or 404. */
function found<T>(row: T | undefined): T {
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

const DECISION_ROW_KEYS = [
  "id",
  "organizationId",
  "storyId",
  "version",
  "decision",
  "actorType",
  "actorRole",
  "personId",
  "oauthClientId",
  "note",
  "decidedAt",
] as const satisfies readonly (keyof typeof approvalDecisions.$inferInsert)[];
/** An approval decision's row, every column the transition's statement writes. */
type DecisionRow = Required<
  Pick<typeof approvalDecisions.$inferInsert, (typeof DECISION_ROW_KEYS)[number]>
>;
const DECISION_PLACEHOLDERS = "decision.";

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
}): DecisionRow {
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

/** Tries of a transition whose story another write changed between its read and its write. */
export const TRANSITION_TRIES = 5;

/**
 * Applies an action. The story, the approval decision and the outbox event commit together or
 * not at all: one statement writes them (`transitionStatement`), in no transaction of its own
 * unless a hook adds writes (`withStoryWrite`). The story is read first and checked against the
 * action; the statement writes only if the story is still the row that was read (its `xmin`),
 * so a write of another that committed in between leaves this one unwritten, and the transition
 * is checked again against the story as it is now. Two round trips, where a transaction that
 * locks the story takes four (begin, the lock, the writes, commit).
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
  for (let tries = 1; ; tries++) {
    const { row, rowVersion, databaseNow } = await readStoryToWrite(db, scope, storyId);
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
      checkPublishAtLead(publishAt, databaseNow, minLead);
    }
    const now = new Date();
    // The story's counter rises by one per event, in the order its writes commit.
    const sequence = rule.event ? row.eventSequence + 1 : row.eventSequence;
    const write = transitionWrite(
      { id: row.id, rowVersion },
      {
        set: {
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
        },
        decision: rule.decision
          ? approvalDecisionRow({
              organizationId: row.organizationId,
              storyId: row.id,
              version: row.currentVersion,
              decision: rule.decision,
              actorRole,
              personId: actor?.personId ?? null,
              oauthClientId: actor?.oauthClientId ?? null,
              note: input.note,
              decidedAt: now,
            })
          : null,
        event: rule.event
          ? {
              organizationId: row.organizationId,
              type: rule.event,
              storyId: row.id,
              at: now,
              sequence,
              previousStatus: row.status,
            }
          : null,
      },
    );
    const written = await writeTransition(db, write, hooks.withStoryWrite);
    if (written) {
      if (rule.event) hooks.onEvent?.();
      return written;
    }
    if (tries >= TRANSITION_TRIES) {
      throw new ApiError("conflict", "The story kept changing while this action was applied.");
    }
  }
}

/**
 * The story to transition, with its row's version (`xmin`: a new one for each write) and the
 * database's clock, the one the scheduler decides due-ness by. Built once and prepared (kept
 * by each connection once used): an unprepared statement with parameters costs the driver a
 * round trip of its own before it is sent, to ask the server for their types.
 */
async function readStoryToWrite(
  db: Queryable,
  scope: StoryScope,
  storyId: string,
): Promise<{ row: StoryRow; rowVersion: string; databaseNow: Date }> {
  checkStoryId(storyId);
  const [read] =
    scope === null
      ? await readStoryAnywhere<Record<string, unknown>>(db, { storyId })
      : await readStoryOfOrganization<Record<string, unknown>>(db, {
          storyId,
          organizationId: scope,
        });
  const story = found(read);
  return {
    row: storyOf(story),
    rowVersion: story.row_version as string,
    databaseNow: new Date(story.database_now as string | Date),
  };
}

/**
 * The story's columns, named: a prepared statement that read or returned `*` would fail inside
 * a transaction once a migration added a column ("cached plan must not change result type").
 */
const STORY_COLUMNS = sql.join(
  Object.values(getTableColumns(stories)).map((column) => sql.identifier(column.name)),
  sql`, `,
);

function storyToWriteStatement(scoped: boolean): SQL {
  const inScope = scoped
    ? sql` and ${stories.organizationId} = ${sql.placeholder("organizationId")}`
    : sql``;
  return sql`select ${STORY_COLUMNS}, xmin::text as row_version, now() as database_now
    from ${stories}
    where ${stories.id} = ${sql.placeholder("storyId")}${inScope}`;
}

const readStoryOfOrganization = builtOnce<{ storyId: string; organizationId: string }>(
  "workspace_story_to_write",
  () => storyToWriteStatement(true),
);
const readStoryAnywhere = builtOnce<{ storyId: string }>("workspace_story_to_write_anywhere", () =>
  storyToWriteStatement(false),
);

/** The story's columns a transition sets, each from the placeholder of its name. */
const TRANSITION_SETS = [
  "status",
  "eventSequence",
  "approvedVersion",
  "publishedAt",
  "scheduledAt",
  "publishAt",
  "scheduledBy",
  "publishFailure",
  "updatedAt",
] as const;
type TransitionSet = Required<Pick<typeof stories.$inferInsert, (typeof TRANSITION_SETS)[number]>>;

/**
 * One statement for a transition: the story's update, only while its row is the one read
 * (placeholder `rowVersion`); then, only if it updated, the approval decision and the outbox
 * event, each when the transition has one; it returns the Story record, or nothing when the
 * story changed meanwhile. The update's common table expression is named `stories`, so that
 * the record's columns (`storyRecordReturning`) read the story as written.
 */
function transitionStatement(writes: { decision: boolean; event: boolean }): SQL {
  const columns = getTableColumns(stories);
  const sets = TRANSITION_SETS.map(
    (key) => sql`${sql.identifier(columns[key].name)} = ${sql.placeholder(key)}`,
  );
  const update = sql`update ${stories} set ${sql.join(sets, sql`, `)}
    where ${stories.id} = ${sql.placeholder("storyId")}
      and xmin = ${sql.placeholder("rowVersion")}::xid
    returning ${STORY_COLUMNS}`;
  const inserts = [
    ...(writes.decision
      ? [
          sql`decided as (${insertSelecting(
            approvalDecisions,
            placeholdersOf(DECISION_ROW_KEYS, DECISION_PLACEHOLDERS),
            "stories",
          )})`,
        ]
      : []),
    ...(writes.event ? [sql`evented as (${outboxEventInsertFrom("stories")})`] : []),
  ];
  return sql`with stories as (${update})${sql.join(inserts.map((cte) => sql`, ${cte}`))}
    select stories.*, ${storyRecordReturning.title} as "record.title",
      ${storyRecordReturning.summary} as "record.summary",
      ${storyRecordReturning.topics} as "record.topics"
    from stories`;
}

/** `transitionStatement`'s four shapes, each built once. */
const transitionStatements = new Map(
  [false, true].flatMap((decision) =>
    [false, true].map((event) => [
      `${decision}:${event}`,
      builtOnce<Record<string, unknown>>(
        `workspace_transition${decision ? "_decided" : ""}${event ? "_evented" : ""}`,
        () => transitionStatement({ decision, event }),
      ),
    ]),
  ),
);

/** A transition's statement with its values: its rows when run on a connection. */
function transitionWrite(
  story: { id: string; rowVersion: string },
  write: {
    set: TransitionSet;
    decision: DecisionRow | null;
    event: OutboxEventInput | null;
  },
): (on: Queryable) => Promise<Record<string, unknown>[]> {
  const statement = transitionStatements.get(`${write.decision !== null}:${write.event !== null}`)!;
  const values = {
    ...placeholderValues(stories, write.set),
    storyId: story.id,
    rowVersion: story.rowVersion,
    ...(write.decision
      ? placeholderValues(approvalDecisions, write.decision, DECISION_PLACEHOLDERS)
      : {}),
    ...(write.event ? outboxEventValues(write.event) : {}),
  };
  return (on) => statement<Record<string, unknown>>(on, values);
}

const storyOf = rowMapper(stories);

/** Runs a transition's statement (with the hook's writes, in one transaction); its record or null. */
async function writeTransition(
  db: Db,
  write: (on: Queryable) => Promise<Record<string, unknown>[]>,
  withStoryWrite: TransitionHooks["withStoryWrite"],
): Promise<StoryOut | null> {
  const run = async (on: Queryable) => {
    const [written] = await write(on);
    return written
      ? storyRecordOf({
          story: storyOf(written),
          title: written["record.title"] as string | null,
          summary: written["record.summary"] as string | null,
          topics: written["record.topics"] as string[] | null,
        })
      : null;
  };
  if (!withStoryWrite) return run(db);
  try {
    return await db.transaction(async (tx) => {
      // Sent together: the connection pipelines them, one round trip for both.
      const [written] = await Promise.all([run(tx), withStoryWrite(tx)]);
      // The story changed meanwhile: the hook's writes go with the transaction.
      if (!written) throw STORY_CHANGED;
      return written;
    });
  } catch (error) {
    if (error === STORY_CHANGED) return null;
    throw error;
  }
}

const STORY_CHANGED = new Error("the story changed between its read and its write");
