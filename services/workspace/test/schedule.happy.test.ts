import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { auditEvents, outboxEvents, stories } from "@newsroom/shared/db/schema";
import { SesMailer } from "@newsroom/shared/mailer";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type SesEmulator, startSesEmulator } from "@newsroom/shared/testing/ses-emulator";
import { and, eq, sql } from "drizzle-orm";
import { publishDueStories, startScheduler } from "../src/stories/scheduler.ts";
import { type Harness, orgWithDraft, transition, workspaceHarness } from "./support/harness.ts";

/**
 * The scheduler on one database: a due story published once with its event; one still scheduled
 * past the bound goes to `failed` and its scheduler is emailed. Times are moved into the past in
 * the database (the scheduler reads only the database's clock); the one-minute rule end to end,
 * with two replicas, is test/faults/scheduled-publishing.test.ts.
 */
describe("the scheduler", () => {
  let h: Harness;
  let ses: SesEmulator;
  beforeAll(async () => {
    h = await workspaceHarness();
    ses = await startSesEmulator();
  });
  afterAll(async () => {
    await h.close();
    await ses.close();
  });

  async function scheduledStory(slug: string) {
    const { orgId, storyId } = await orgWithDraft(h, slug);
    await transition(h, storyId, "submit");
    await transition(h, storyId, "approve", { actor_role: "approver" });
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await transition(h, storyId, "schedule", { publish_at: at });
    expect(scheduled.body.status).toBe("scheduled");
    return { orgId, storyId };
  }

  /** Moves a story's time `seconds` into the past. */
  async function dueSince(storyId: string, seconds: number) {
    await h.database.db
      .update(stories)
      .set({ publishAt: sql`now() - make_interval(secs => ${seconds})` })
      .where(eq(stories.id, storyId));
  }

  test("a story not yet due stays scheduled", async () => {
    const { storyId } = await scheduledStory("sched-later");
    expect(await publishDueStories(h.database.db, 900)).toEqual([]);
    expect((await h.call("GET", `/stories/${storyId}`)).body.status).toBe("scheduled");
  });

  test("a due story is published once, with one story.published event, keeping its publish_at", async () => {
    const { storyId } = await scheduledStory("sched-due");
    await dueSince(storyId, 1);
    const scheduler = startScheduler(h.database.db, {
      lateLimitSeconds: 900,
      mailer: null,
      appUrl: "http://localhost/app",
    });
    try {
      await eventually(
        async () => (await h.call("GET", `/stories/${storyId}`)).body.status,
        (status) => status === "published",
        { message: "the scheduler to publish the due story" },
      );
    } finally {
      await scheduler.stop();
    }
    expect(await publishDueStories(h.database.db, 900)).toEqual([]);
    const story = (await h.call("GET", `/stories/${storyId}`)).body;
    expect(story.publish_at).not.toBeNull();
    expect(new Date(story.published_at).getTime()).toBeGreaterThanOrEqual(
      new Date(story.publish_at).getTime(),
    );
    const events = await h.database.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.storyId, storyId), eq(outboxEvents.type, "story.published")));
    expect(events).toHaveLength(1);
    expect(events[0]!.previousStatus).toBe("scheduled");
    const audited = await h.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectId, storyId), eq(auditEvents.actor, "scheduler")));
    expect(audited.map((row) => row.action)).toEqual(["story.publish"]);
  });

  // On PostgreSQL only: PGlite's clock is the process's own.
  test.skipIf(!process.env.DATABASE_URL)(
    "a process clock that jumps decides nothing: the database's clock does",
    async () => {
      const { storyId: notYet } = await scheduledStory("sched-clock-ahead");
      const { storyId: due } = await scheduledStory("sched-clock-behind");
      await dueSince(due, 1);
      const scheduler = startScheduler(h.database.db, {
        lateLimitSeconds: 900,
        mailer: null,
        appUrl: "http://localhost/app",
      });
      try {
        // The process's clock two hours ahead: the story due in an hour is not published...
        setSystemTime(new Date(Date.now() + 2 * 3_600_000));
        scheduler.kick();
        await eventually(
          async () => (await h.call("GET", `/stories/${due}`)).body.status,
          (status) => status === "published",
          { message: "the due story published" },
        );
        expect((await h.call("GET", `/stories/${notYet}`)).body.status).toBe("scheduled");
        // ...and two hours behind, a story due by the database's clock is.
        setSystemTime(new Date(Date.now() - 4 * 3_600_000));
        await dueSince(notYet, 1);
        scheduler.kick();
        await eventually(
          async () => (await h.call("GET", `/stories/${notYet}`)).body.status,
          (status) => status === "published",
          { message: "the story due by the database's clock published" },
        );
      } finally {
        setSystemTime();
        await scheduler.stop();
      }
    },
  );

  test("past the bound the story fails, with its reason, and the organization is emailed", async () => {
    const { orgId, storyId } = await scheduledStory("sched-late");
    await h.call("POST", "/orgs/sched-late/members", {
      email: "owner@sched-late.example",
      role: "owner",
    });
    await dueSince(storyId, 120);
    const scheduler = startScheduler(h.database.db, {
      lateLimitSeconds: 60,
      mailer: new SesMailer("newsroom@sched.example", undefined, {
        region: "us-east-1",
        endpoint: ses.url,
        timeoutMs: 5_000,
      }),
      appUrl: "http://localhost/app",
    });
    try {
      await eventually(
        () => ses.to("owner@sched-late.example"),
        (mails) => mails.length === 1,
        {
          message: "the failed-publication email",
        },
      );
    } finally {
      await scheduler.stop();
    }
    const story = (await h.call("GET", `/stories/${storyId}`)).body;
    expect(story.status).toBe("failed");
    expect(story.published_at).toBeNull();
    const [row] = await h.database.db
      .select({ reason: stories.publishFailure, org: stories.organizationId })
      .from(stories)
      .where(eq(stories.id, storyId));
    expect(row!.org).toBe(orgId);
    expect(row!.reason).toContain("within 1 minute of its time");
    const [mail] = await ses.to("owner@sched-late.example");
    expect(mail!.subject).toContain("Scheduled story not published: First story");
    expect(mail!.body.text).toContain(`/app/stories/${storyId}`);
    const events = await h.database.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.storyId, storyId), eq(outboxEvents.type, "story.published")));
    expect(events).toHaveLength(0);
    // Failed: it may be scheduled again (or published now).
    const again = await transition(h, storyId, "schedule", {
      publish_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(again.body.status).toBe("scheduled");
  });
});
