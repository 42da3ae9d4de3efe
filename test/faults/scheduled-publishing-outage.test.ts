import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, openDatabase } from "@newsroom/shared/db/index";
import { stories } from "@newsroom/shared/db/schema";
import { startBudget } from "@newsroom/shared/testing/budget";
import { requireService } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type SesEmulator, startSesEmulator } from "@newsroom/shared/testing/ses-emulator";
import { eq } from "drizzle-orm";
import { operatorApi } from "../support/cluster.ts";
import {
  type OwnPostgres,
  ownPostgresAvailable,
  startOwnPostgres,
} from "../support/own-postgres.ts";
import { type Replicas, startReplicas } from "../support/workspace-replicas.ts";

/**
 * The database stopped across a story's time. The test starts a PostgreSQL cluster of its own
 * (initdb in a temporary folder; the machine's shared server keeps serving the other suites),
 * stops it with `pg_ctl stop -m immediate` a second before the time and starts it again:
 * 3 s after the time (within the scheduler's bound, SCHEDULE_LATE_LIMIT_SECONDS=6 here) the
 * story is published then, once; 9 s after (past the bound) it goes to `failed` with its reason,
 * and the organization's owner (an operator scheduled it) is emailed. SCHEDULE_MIN_LEAD_SECONDS=2,
 * the test switch, keeps the wait short.
 */
const natsUrl = requireService("NATS_URL");
const ready = Boolean(natsUrl) && ownPostgresAvailable();

const ADMIN_TOKEN = "scheduled-outage-admin-token";
const LATE_LIMIT_SECONDS = 6;
const OWNER = "owner@scheduled-outage.example";

describe.skipIf(!ready)("scheduled publishing across a database outage", () => {
  let postgres: OwnPostgres;
  let database: Database;
  let ses: SesEmulator;
  let replicas: Replicas;
  let admin: ReturnType<typeof operatorApi>;

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    ses = await startSesEmulator();
    const suffix = Math.random().toString(36).slice(2, 8);
    replicas = await startReplicas(
      {
        PATH: process.env.PATH,
        DATABASE_URL: postgres.url,
        NATS_URL: natsUrl,
        NATS_STREAM: `SCHEDULE_OUTAGE_${suffix}`,
        NATS_SUBJECT_PREFIX: `scheduleoutage${suffix}.`,
        ADMIN_TOKEN,
        LOG_LEVEL: "error",
        SCHEDULE_MIN_LEAD_SECONDS: "2",
        SCHEDULE_LATE_LIMIT_SECONDS: String(LATE_LIMIT_SECONDS),
        SES_ENDPOINT: ses.url,
        FORMS_FROM_EMAIL: "newsroom@scheduled-outage.example",
      },
      1,
      startBudget(2),
    );
    database = await openDatabase({ url: postgres.url, max: 2 });
    admin = operatorApi(replicas.workspaces[0]!.base, ADMIN_TOKEN);
    await admin("POST", "/orgs", { slug: "outage", name: "Outage", newsroom_running: true });
    await admin("POST", "/orgs/outage/members", { email: OWNER, role: "owner" });
  }, startBudget(2) + 30_000);

  afterAll(async () => {
    await replicas?.stop();
    await database?.close();
    await postgres?.remove();
    await ses?.close();
  });

  /** An approved story scheduled `seconds` ahead; its id and time. */
  async function scheduledStory(slug: string, seconds: number) {
    const story = await admin("POST", "/orgs/outage/stories", {
      type: "press_release",
      slug,
      title: `Story ${slug}`,
    });
    await admin("POST", `/stories/${story.id}/transitions`, { action: "submit" });
    await admin("POST", `/stories/${story.id}/transitions`, {
      action: "approve",
      actor_role: "approver",
    });
    const at = new Date(Math.ceil((Date.now() + seconds * 1000) / 1000) * 1000);
    await admin("POST", `/stories/${story.id}/transitions`, {
      action: "schedule",
      publish_at: at.toISOString(),
    });
    return { id: story.id as string, at };
  }

  /** Stops the database a second before `at` and starts it `backAfterMs` after `at`. */
  async function outageAcross(at: Date, backAfterMs: number) {
    await Bun.sleep(at.getTime() - 1_000 - Date.now());
    await postgres.stop();
    await Bun.sleep(at.getTime() + backAfterMs - Date.now());
    await postgres.start();
  }

  const statusOf = async (id: string) =>
    (
      await database.db
        .select({
          status: stories.status,
          publishedAt: stories.publishedAt,
          failure: stories.publishFailure,
        })
        .from(stories)
        .where(eq(stories.id, id))
    )[0]!;

  test("back within the bound: published when the database returns", async () => {
    const { id, at } = await scheduledStory("back-in-time", 4);
    await outageAcross(at, 3_000);
    const after = await eventually(
      () => statusOf(id),
      (row) => row.status === "published",
      { message: "the story published after the database returned", timeoutMs: 10_000 },
    );
    const late = after.publishedAt!.getTime() - at.getTime();
    console.log(`published ${late} ms after its time, the database back 3000 ms after it`);
    expect(late).toBeGreaterThanOrEqual(3_000);
    expect(late).toBeLessThan(LATE_LIMIT_SECONDS * 1000);
    const listed = await admin("GET", "/orgs/outage/stories?status=published");
    expect(listed.data.map((story: { id: string }) => story.id)).toContain(id);
  }, 40_000);

  test("back past the bound: failed, with its reason, and the owner is emailed", async () => {
    const { id, at } = await scheduledStory("back-too-late", 4);
    await outageAcross(at, (LATE_LIMIT_SECONDS + 3) * 1000);
    const after = await eventually(
      () => statusOf(id),
      (row) => row.status === "failed",
      { message: "the story failed past the bound", timeoutMs: 10_000 },
    );
    expect(after.publishedAt).toBeNull();
    expect(after.failure).toContain(`within ${LATE_LIMIT_SECONDS} seconds of its time`);
    const [mail] = await eventually(
      () => ses.to(OWNER),
      (mails) => mails.length === 1,
      { message: "the failed-publication email", timeoutMs: 10_000 },
    );
    expect(mail!.subject).toBe("Scheduled story not published: Story back-too-late");
    expect(mail!.body.text).toContain(`/stories/${id}`);
  }, 60_000);
});
