import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Db } from "@newsroom/shared/db/index";
import {
  approvalDecisions,
  outboxEvents,
  type StoryStatus,
  stories,
} from "@newsroom/shared/db/schema";
import {
  applyStoryAction,
  insertOrganization,
  insertStory,
} from "@newsroom/shared/testing/builders";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { transitionStory } from "@newsroom/workspace/stories/service";
import { ACTIONS, TRANSITIONS } from "@newsroom/workspace/stories/state-machine";
import { asc, eq } from "drizzle-orm";

/**
 * The shared builders' `applyStoryAction` keeps a copy of what each story transition records,
 * so that a reading service's tests need not run the workspace. The copy must not drift: for
 * every action from every status it may leave, the builder and the workspace's own transition
 * leave the same story, the same approval decision and the same outbox event.
 */
let database: TestDatabase;
let organizationId: string;
const NOTE = "Needs a source.";
const PUBLISH_AT = new Date(Date.now() + 2 * 3_600_000);

beforeAll(async () => {
  database = await testDatabase();
  organizationId = (await insertOrganization(database.db, { slug: "story-actions" })).id;
}, 60_000);
afterAll(async () => {
  await database.close();
});

let made = 0;
/** A story in `status`, its current version approved (so that every action may run). */
async function storyIn(db: Db, status: StoryStatus): Promise<string> {
  made += 1;
  const story = await insertStory(db, organizationId, {
    type: "press_release",
    slug: `story-${made}`,
    title: `Story ${made}`,
  });
  await db
    .update(stories)
    .set({ status, approvedVersion: 1, eventSequence: 3 })
    .where(eq(stories.id, story.id));
  return story.id;
}

/** What an action left, without ids and times (only whether each time was set). */
async function recorded(db: Db, storyId: string) {
  const [story] = await db.select().from(stories).where(eq(stories.id, storyId));
  const decisions = await db
    .select()
    .from(approvalDecisions)
    .where(eq(approvalDecisions.storyId, storyId));
  const events = await db
    .select()
    .from(outboxEvents)
    .where(eq(outboxEvents.storyId, storyId))
    .orderBy(asc(outboxEvents.sequence));
  return {
    status: story!.status,
    currentVersion: story!.currentVersion,
    approvedVersion: story!.approvedVersion,
    eventSequence: story!.eventSequence,
    published: story!.publishedAt !== null,
    scheduled: story!.scheduledAt !== null,
    publishAt: story!.publishAt?.toISOString() ?? null,
    decisions: decisions.map((row) => ({
      decision: row.decision,
      version: row.version,
      actorType: row.actorType,
      actorRole: row.actorRole,
      note: row.note,
    })),
    events: events.map((row) => ({
      type: row.type,
      sequence: row.sequence,
      previousStatus: row.previousStatus,
      organizationId: row.organizationId,
      published: row.publishedAt !== null,
    })),
  };
}

describe("the builders' story actions match the workspace's state machine", () => {
  for (const action of ACTIONS) {
    for (const from of TRANSITIONS[action].from) {
      test(`${action} from ${from}`, async () => {
        const { db } = database;
        const byWorkspace = await storyIn(db, from);
        const byBuilder = await storyIn(db, from);
        await transitionStory(db, organizationId, byWorkspace, {
          action,
          note: NOTE,
          actor_role: "approver",
          publish_at: action === "schedule" ? PUBLISH_AT.toISOString() : undefined,
        });
        const { story, eventId, event } = await applyStoryAction(db, byBuilder, action, {
          note: NOTE,
          actorRole: "approver",
          publishAt: PUBLISH_AT,
        });

        const expected = await recorded(db, byWorkspace);
        expect(expected.status).toBe(TRANSITIONS[action].to);
        expect(await recorded(db, byBuilder)).toEqual(expected);
        expect(story.status).toBe(expected.status);
        // The event the builder hands back is the one it wrote, as the relay publishes it.
        const [written] = await db
          .select()
          .from(outboxEvents)
          .where(eq(outboxEvents.storyId, byBuilder));
        expect(eventId).toBe(written?.id ?? null);
        expect(event).toEqual(
          written
            ? {
                id: written.id,
                type: written.type,
                created_at: written.createdAt.toISOString(),
                data: { organization_id: organizationId, story_id: byBuilder },
              }
            : null,
        );
      });
    }
  }
});
