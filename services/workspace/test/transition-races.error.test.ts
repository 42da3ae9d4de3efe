import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openDatabase, type Queryable } from "@newsroom/shared/db/index";
import { approvalDecisions, auditEvents, outboxEvents } from "@newsroom/shared/db/schema";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { asc, eq } from "drizzle-orm";
import postgres from "postgres";
import { audit } from "../src/audit.ts";
import { TRANSITION_TRIES, transitionStory } from "../src/stories/service.ts";
import { type Harness, orgWithDraft, transition, workspaceHarness } from "./support/harness.ts";

const databaseUrl = requireService("DATABASE_URL");

/**
 * A transition reads its story, then writes it only while it is the row read: another write
 * that commits in between sends it back to the story as it is now.
 */
describe.skipIf(!databaseUrl)("a transition beside other writes of its story", () => {
  let h: Harness;
  let own: TestDatabase;
  let other: postgres.Sql;
  beforeAll(async () => {
    own = await testDatabase({ backend: "postgres" });
    h = await workspaceHarness({ database: own });
    other = postgres(own.url!, { max: 4, onnotice: () => {} });
  });
  afterAll(async () => {
    await other.end();
    await h.close();
  });

  async function approvedStory(slug: string) {
    const { orgId, storyId } = await orgWithDraft(h, slug);
    expect((await transition(h, storyId, "submit")).status).toBe(200);
    expect((await transition(h, storyId, "approve")).status).toBe(200);
    return { orgId, storyId };
  }

  /**
   * Holds the story's row while `act` starts (its reads see the story as it was) until `writes`
   * of its statements wait on the row, then runs `meanwhile` in the holding transaction (a write
   * of another, or nothing) and lets them go on: `act`'s answer.
   */
  async function whileStoryHeld<T>(
    storyId: string,
    act: () => Promise<T>,
    options: { writes: number; meanwhile?: (tx: postgres.TransactionSql) => Promise<unknown> },
  ) {
    let answer!: Promise<T>;
    await other.begin(async (tx) => {
      await tx`select 1 from stories where id = ${storyId} for update`;
      answer = act();
      answer.catch(() => {});
      await eventually(
        async () => {
          const [waiting] = await other`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'
              and query like 'with stories as (update%'`;
          return waiting?.n === options.writes;
        },
        { message: `${options.writes} transition writes waiting on the story's row` },
      );
      await options.meanwhile?.(tx);
    });
    return answer;
  }

  /** `whileStoryHeld` for one transition, a new version written meanwhile (back to draft). */
  function withVersionWrittenMeanwhile<T>(storyId: string, act: () => Promise<T>) {
    return whileStoryHeld(storyId, act, {
      writes: 1,
      meanwhile: (tx) => tx`update stories set status = 'draft',
        current_version = current_version + 1, updated_at = now() where id = ${storyId}`,
    });
  }

  test("a version written between the read and the write: publish is refused, nothing written", async () => {
    const { storyId } = await approvedStory("race-publish");
    const answer = await withVersionWrittenMeanwhile(storyId, () =>
      transition(h, storyId, "publish"),
    );
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe("invalid_transition");
    expect(answer.body.error.message).toContain("draft");
    const events = await h.database.db
      .select({ type: outboxEvents.type })
      .from(outboxEvents)
      .where(eq(outboxEvents.storyId, storyId));
    expect(events.map((event) => event.type).sort()).toEqual(["story.approved", "story.submitted"]);
  });

  test("a transition whose story changed meanwhile is applied to the story as it is now", async () => {
    const { storyId } = await orgWithDraft(h, "race-submit");
    const answer = await withVersionWrittenMeanwhile(storyId, () =>
      transition(h, storyId, "submit"),
    );
    // Still a draft, so still submittable: the second try submits the newer version.
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("review_required");
    expect(answer.body.version).toBe(2);
    const events = await h.database.db
      .select({ sequence: outboxEvents.sequence })
      .from(outboxEvents)
      .where(eq(outboxEvents.storyId, storyId));
    expect(events).toEqual([{ sequence: 1 }]);
  });

  test("with a hook's writes: a try whose story changed leaves none of them", async () => {
    const { orgId, storyId } = await approvedStory("race-hook");
    const attempt = withVersionWrittenMeanwhile(storyId, () =>
      transitionStory(
        h.database.db,
        orgId,
        storyId,
        { action: "publish" },
        { withStoryWrite: (tx) => audit(tx, orgId, "story.publish", storyId, "person:test") },
      ),
    );
    await expect(attempt).rejects.toThrow("cannot publish");
    const audited = await h.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, "story.publish"));
    expect(audited).toHaveLength(0);
  });

  test("approve and reject at once: one decides, the other is refused", async () => {
    const { storyId } = await orgWithDraft(h, "race-decide");
    expect((await transition(h, storyId, "submit")).status).toBe(200);
    // All four read the story in review, then write at once: the first write applies, and the
    // three others find the row changed and are checked again against the decided story.
    const answers = await whileStoryHeld(
      storyId,
      () =>
        Promise.all([
          transition(h, storyId, "approve"),
          transition(h, storyId, "reject", { note: "Not yet." }),
          transition(h, storyId, "approve"),
          transition(h, storyId, "reject", { note: "Not yet." }),
        ]),
      { writes: 4 },
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
    const decided = answers.find((answer) => answer.status === 200)!.body.status;
    const decisions = await h.database.db
      .select({ decision: approvalDecisions.decision })
      .from(approvalDecisions)
      .where(eq(approvalDecisions.storyId, storyId));
    expect(decisions).toEqual([{ decision: decided }]);
    const events = await h.database.db
      .select({ type: outboxEvents.type, sequence: outboxEvents.sequence })
      .from(outboxEvents)
      .where(eq(outboxEvents.storyId, storyId))
      .orderBy(asc(outboxEvents.sequence));
    expect(events).toEqual([
      { type: "story.submitted", sequence: 1 },
      { type: decided === "approved" ? "story.approved" : "story.rejected", sequence: 2 },
    ]);
  });
  /** When the transition write waiting on the story's row started (null: none waits). */
  async function writeWaitingSince(): Promise<string | null> {
    const [waiting] = await other`
      select query_start::text as since from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'
        and query like 'with stories as (update%'`;
    return waiting?.since ?? null;
  }

  async function lockersWaiting(): Promise<number> {
    const [waiting] = await other`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'
        and query like 'select 1 from stories where id =%'`;
    return waiting?.n ?? 0;
  }

  test("a story changed before each try's write: 409 conflict after the last try, nothing written", async () => {
    const { storyId } = await orgWithDraft(h, "race-every-try");
    const lock = (held: postgres.ReservedSql) =>
      held`select 1 from stories where id = ${storyId} for update`;
    const open = new Set<postgres.ReservedSql>();
    const holding = async () => {
      const held = await other.reserve();
      open.add(held);
      await held`begin`;
      return held;
    };
    const done = async (held: postgres.ReservedSql, end: "commit" | "rollback") => {
      open.delete(held);
      try {
        await (end === "commit" ? held`commit` : held`rollback`);
      } finally {
        held.release();
      }
    };
    let answered = false;
    let answer!: Promise<Awaited<ReturnType<typeof transition>>>;
    // Each round: the try's write waits on the row; the holder changes the story, queues the
    // next holder behind that write, and commits. The write finds the row changed, and the
    // next try reads the story again and waits on the next holder.
    let changes = 0;
    try {
      let holder = await holding();
      await lock(holder);
      answer = transition(h, storyId, "submit").finally(() => {
        answered = true;
      });
      let lastWrite: string | null = null;
      for (;;) {
        let write: string | null = null;
        await eventually(
          async () => {
            write = await writeWaitingSince();
            return answered || write !== null;
          },
          { message: "a transition's write waiting on the story's row" },
        );
        if (answered) break;
        // The same write still waiting: it lost the row to the next holder as it went to read
        // the committed change (a narrow race), and fails on this change instead. Not a try.
        if (write !== lastWrite) changes++;
        lastWrite = write;
        await holder`update stories set updated_at = now() where id = ${storyId}`;
        const next = await holding();
        const locked = lock(next).execute();
        await eventually(async () => (await lockersWaiting()) === 1, {
          message: "the next holder waiting on the story's row",
        });
        await done(holder, "commit");
        await locked;
        holder = next;
      }
      await done(holder, "commit");
    } finally {
      for (const held of open) await done(held, "rollback").catch(() => {});
    }
    const response = await answer;
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe("conflict");
    expect(changes).toBe(TRANSITION_TRIES);
    const [story] = await other`select status, event_sequence from stories where id = ${storyId}`;
    expect(story).toEqual({ status: "draft", event_sequence: 0 });
    const events = await h.database.db
      .select({ type: outboxEvents.type })
      .from(outboxEvents)
      .where(eq(outboxEvents.storyId, storyId));
    expect(events).toEqual([]);
  });
  test("a transition in a transaction after a migration added a column to stories", async () => {
    // One connection, so the second transition runs on the statements the first one prepared:
    // a statement that read `*` would now fail ("cached plan must not change result type").
    const single = await openDatabase({ url: own.url!, max: 1 });
    try {
      const { orgId, storyId: first } = await orgWithDraft(h, "migrated-first");
      const made = await h.call("POST", "/orgs/migrated-first/stories", {
        type: "press_release",
        slug: "second-story",
        title: "Second story",
      });
      const second = made.body.id as string;
      const audited = (storyId: string) => ({
        withStoryWrite: (tx: Queryable) => audit(tx, orgId, "story.submit", storyId, "person:test"),
      });
      for (const [storyId, migrate] of [
        [first, false],
        [second, true],
      ] as const) {
        if (migrate) await other`alter table stories add column added_later integer`;
        const story = await transitionStory(
          single.db,
          orgId,
          storyId,
          { action: "submit" },
          audited(storyId),
        );
        expect(story.status).toBe("review_required");
      }
    } finally {
      await single.close();
    }
  });
});
