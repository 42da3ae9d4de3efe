import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { outboxEvents, stories } from "@newsroom/shared/db/schema";
import { eq, sql } from "drizzle-orm";
import { publishDueStories } from "../src/stories/scheduler.ts";
import { type Harness, orgWithDraft, transition, workspaceHarness } from "./support/harness.ts";

/** `schedule` with a `publish_at`: the refusals, unschedule, and a new version before the time. */
describe("scheduling a story: refusals and changes of mind", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness();
  });
  afterAll(() => h.close());

  /** A story of a new organization, approved and ready to schedule. */
  async function approvedStory(slug: string) {
    const { orgId, storyId } = await orgWithDraft(h, slug);
    await transition(h, storyId, "submit");
    await transition(h, storyId, "approve", { actor_role: "approver" });
    return { orgId, storyId };
  }

  const ahead = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

  test("publish_at must be a date-time with an offset, a minute to a year ahead", async () => {
    const { storyId } = await approvedStory("sched-refusals");
    const refusals: [unknown, string][] = [
      [undefined, "required"],
      ["tomorrow", "invalid"],
      ["2027-05-01T09:00:00", "invalid"], // no offset
      ["2027-05-01 09:00:00Z", "invalid"],
      ["2027-02-30T09:00:00Z", "invalid"], // no such day
      ["2027-05-01T25:00:00+02:00", "invalid"],
      [ahead(30), "too_soon"],
      [ahead(-3600), "too_soon"],
      [ahead(366 * 86_400), "too_late"],
    ];
    for (const [publishAt, reason] of refusals) {
      const answer = await transition(h, storyId, "schedule", { publish_at: publishAt });
      expect({ publishAt, status: answer.status }).toEqual({ publishAt, status: 422 });
      expect(answer.body.error.code).toBe("validation_failed");
      expect(answer.body.error.fields[0]).toMatchObject({ field: "publish_at", reason });
    }
    const unchanged = await h.call("GET", `/stories/${storyId}`);
    expect(unchanged.body.status).toBe("approved");
    expect(unchanged.body.publish_at).toBeNull();
  });

  test("a time with an offset is kept as its instant; unschedule takes the story back", async () => {
    const { storyId } = await approvedStory("sched-unschedule");
    const at = new Date(Date.now() + 3 * 3_600_000);
    at.setUTCMilliseconds(0);
    // The same instant written in UTC+05:30.
    const local = new Date(at.getTime() + 330 * 60_000).toISOString().slice(0, 19);
    const scheduled = await transition(h, storyId, "schedule", { publish_at: `${local}+05:30` });
    expect(scheduled.status).toBe(200);
    expect(scheduled.body.status).toBe("scheduled");
    expect(scheduled.body.publish_at).toBe(at.toISOString());
    expect((await h.call("GET", `/stories/${storyId}`)).body.publish_at).toBe(at.toISOString());

    const back = await transition(h, storyId, "unschedule");
    expect(back.status).toBe(200);
    expect(back.body.status).toBe("approved");
    expect(back.body.publish_at).toBeNull();
    expect((await transition(h, storyId, "unschedule")).status).toBe(409);
  });

  test("only an approved story is scheduled", async () => {
    const { storyId } = await orgWithDraft(h, "sched-draft");
    const answer = await transition(h, storyId, "schedule", { publish_at: ahead(3600) });
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe("invalid_transition");
  });

  test("a new version before the time sends the story to draft, and the scheduler passes it by", async () => {
    const { storyId } = await approvedStory("sched-version");
    await transition(h, storyId, "schedule", { publish_at: ahead(120) });
    const version = await h.call("POST", `/stories/${storyId}/versions`, { title: "Changed" });
    expect(version.status).toBe(201);
    expect(version.body.status).toBe("draft");
    expect(version.body.publish_at).toBeNull();
    // Its time comes (moved into the past here): nothing is due, nothing is published.
    const { db } = h.database;
    await db
      .update(stories)
      .set({ publishAt: sql`now() - interval '1 second'` })
      .where(eq(stories.id, storyId));
    expect(await publishDueStories(db, 900)).toEqual([]);
    const after = await h.call("GET", `/stories/${storyId}`);
    expect(after.body.status).toBe("draft");
    const events = await db.select().from(outboxEvents).where(eq(outboxEvents.storyId, storyId));
    expect(events.map((event) => event.type)).not.toContain("story.published");
  });

  test("a scheduled story whose approved version is not its current one goes to failed", async () => {
    const { storyId } = await approvedStory("sched-guard");
    await transition(h, storyId, "schedule", { publish_at: ahead(120) });
    const { db } = h.database;
    // Not something the workspace's own paths leave behind: the guard holds anyway.
    await db
      .update(stories)
      .set({ approvedVersion: 0, publishAt: sql`now() - interval '1 second'` })
      .where(eq(stories.id, storyId));
    const outcomes = await publishDueStories(db, 900);
    expect(outcomes).toEqual([expect.objectContaining({ kind: "failed", storyId })]);
    const after = await h.call("GET", `/stories/${storyId}`);
    expect(after.body.status).toBe("failed");
    expect(after.body.published_at).toBeNull();
  });
});
