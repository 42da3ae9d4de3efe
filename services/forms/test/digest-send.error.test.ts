import { describe, expect, test } from "bun:test";
import { digestSubscriptions, formSubmissions } from "@newsroom/shared/db/schema";
import { updateOrganizationRow } from "@newsroom/shared/testing/builders";
import { eq, like } from "drizzle-orm";
import { copyId } from "../src/mailings/send-copies.ts";
import { weekOf } from "../src/mailings/week.ts";
import { sweepExpired } from "../src/sweep.ts";
import { ADMIN_TOKEN, digestWorld } from "./support/digest.ts";
import { publishedStory } from "./support/fixtures.ts";
import { address, random, startRefusingProvider } from "./support/harness.ts";

const { setup } = digestWorld();

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** Runs a test in a week of its own (the clock moved `weeks` ahead), then moves it back. */
async function inWeek(weeks: number, run: () => Promise<void>) {
  setup.forms.clock.advance(weeks * 7 * DAY);
  try {
    await run();
  } finally {
    setup.forms.clock.advance(-weeks * 7 * DAY);
  }
}

async function story(title = "A story") {
  await publishedStory(setup.forms.database.db, setup.house.slug, {
    slug: `s-${random()}`,
    title,
    publishedAt: new Date(setup.forms.clock.now().getTime() - HOUR),
  });
}

async function readers(count: number, who = "reader") {
  const emails = Array.from({ length: count }, () => address(who));
  for (const email of emails) await setup.subscriber(email);
  return emails;
}

/** Only these addresses stay subscribed, so counts in a test are its own. */
async function onlySubscribed(emails: string[]) {
  const db = setup.forms.database.db;
  const rows = await db.select().from(digestSubscriptions);
  for (const row of rows) {
    if (!emails.includes(row.email) && row.status === "subscribed") {
      await db
        .update(digestSubscriptions)
        .set({ status: "unsubscribed" })
        .where(eq(digestSubscriptions.id, row.id));
    }
  }
}

describe("weeks without news", () => {
  test("send nothing and record nothing: a later run that week sends", async () => {
    await inWeek(10, async () => {
      const emails = await readers(2, "quiet");
      await onlySubscribed(emails);
      const quiet = await (await setup.send()).json();
      expect(quiet).toMatchObject({ items: 0, sent: 0, subscribers: 0 });
      for (const email of emails) expect(await setup.issuesTo(email)).toHaveLength(0);

      await story();
      const later = await (await setup.send()).json();
      expect(later).toMatchObject({ items: 1, sent: 2 });
    });
  });

  test("a house newsroom that is not running sends nothing", async () => {
    await inWeek(11, async () => {
      const emails = await readers(1, "stopped");
      await onlySubscribed(emails);
      await story();
      await updateOrganizationRow(setup.forms.database.db, setup.house.id, {
        newsroomRunning: false,
      });
      try {
        expect(await (await setup.send()).json()).toMatchObject({ items: 0, sent: 0 });
      } finally {
        await updateOrganizationRow(setup.forms.database.db, setup.house.id, {
          newsroomRunning: true,
        });
      }
      expect(await setup.issuesTo(emails[0]!)).toHaveLength(0);
    });
  });
});

describe("at most once per subscriber and week", () => {
  test("two runs at once send each copy once", async () => {
    await inWeek(12, async () => {
      const emails = await readers(6, "race");
      await onlySubscribed(emails);
      await story();
      const replica = await setup.formsWith({});
      const [a, b] = await Promise.all([setup.send(), setup.send({}, replica)]);
      const runs = [await a.json(), await b.json()];
      expect(runs[0].sent + runs[1].sent).toBe(6);
      expect(runs[0].already_sent + runs[1].already_sent).toBe(6);
      for (const email of emails) expect(await setup.issuesTo(email)).toHaveLength(1);
    });
  });

  test("after a crash mid-run, the rerun sends the rest and never repeats a claimed copy", async () => {
    await inWeek(13, async () => {
      const emails = await readers(5, "crash");
      await onlySubscribed(emails);
      await story();
      const week = weekOf(setup.forms.clock.now()).name;
      const db = setup.forms.database.db;
      const subs = await db.select().from(digestSubscriptions);
      const ids = new Map(subs.map((row) => [row.email, row.id]));
      // What a run killed mid-way leaves: two copies claimed (one sent, one in flight).
      const claimedAt = setup.forms.clock.now();
      for (const [index, email] of emails.slice(0, 2).entries()) {
        await db.insert(formSubmissions).values({
          submissionId: copyId(ids.get(email)!, week),
          route: `digest:${week}`,
          status: index === 0 ? "sent" : "sending",
          expiresAt: new Date(claimedAt.getTime() + 40 * DAY),
          createdAt: claimedAt,
        });
      }
      const rerun = await (await setup.send()).json();
      expect(rerun).toMatchObject({ sent: 3, already_sent: 2 });
      for (const email of emails.slice(0, 2)) expect(await setup.issuesTo(email)).toHaveLength(0);
      for (const email of emails.slice(2)) expect(await setup.issuesTo(email)).toHaveLength(1);
    });
  });

  test("records outlive the forms' sweep of expired ids while the week can still be sent", async () => {
    await inWeek(14, async () => {
      const emails = await readers(1, "sweep");
      await onlySubscribed(emails);
      await story();
      const week = weekOf(setup.forms.clock.now());
      expect((await (await setup.send()).json()).sent).toBe(1);
      const db = setup.forms.database.db;
      // The last moment the week may be sent: 28 days after it ended.
      const lastChance = new Date(week.end.getTime() + 28 * DAY - 1000);
      await sweepExpired({ db, now: () => lastChance });
      const records = await db
        .select()
        .from(formSubmissions)
        .where(like(formSubmissions.route, `digest:${week.name}`));
      expect(records).toHaveLength(1);
      expect(records[0]!.status).toBe("sent");
      const jump = lastChance.getTime() - setup.forms.clock.now().getTime();
      setup.forms.clock.advance(jump);
      try {
        const late = await (await setup.send({ week: week.name })).json();
        expect(late).toMatchObject({ sent: 0, already_sent: 1 });
      } finally {
        setup.forms.clock.advance(-jump);
      }
      expect(await setup.issuesTo(emails[0]!)).toHaveLength(1);
    });
  });
});

describe("the provider", () => {
  test("refusing: nothing is recorded, the next run sends every copy once", async () => {
    await inWeek(15, async () => {
      const emails = await readers(3, "refused");
      await onlySubscribed(emails);
      await story();
      const provider = startRefusingProvider(400);
      try {
        const refusing = await setup.formsWith({ SES_ENDPOINT: provider.url });
        const run = await (await setup.send({}, refusing)).json();
        expect(run).toMatchObject({ sent: 0, failed: 3, unconfirmed: 0, stopped: false });
        expect(provider.attempts()).toBeGreaterThanOrEqual(3);
      } finally {
        provider.close();
      }
      const retry = await (await setup.send()).json();
      expect(retry).toMatchObject({ sent: 3, already_sent: 0 });
      for (const email of emails) expect(await setup.issuesTo(email)).toHaveLength(1);
    });
  });

  test("refusing again and again: the run stops after ten in a row", async () => {
    await inWeek(16, async () => {
      const emails = await readers(14, "down");
      await onlySubscribed(emails);
      await story();
      const provider = startRefusingProvider(500);
      try {
        const down = await setup.formsWith({ SES_ENDPOINT: provider.url });
        const run = await (await setup.send({}, down)).json();
        expect(run.stopped).toBe(true);
        expect(run.failed).toBeGreaterThanOrEqual(10);
        expect(run.failed).toBeLessThan(14);
      } finally {
        provider.close();
      }
      expect((await (await setup.send()).json()).sent).toBe(14);
    });
  }, 30_000);

  test("not answering: the copy may have arrived, so no run sends it again", async () => {
    await inWeek(17, async () => {
      const emails = await readers(2, "silent");
      await onlySubscribed(emails);
      await story();
      // Accepts connections and closes them without an answer.
      const silent = Bun.listen({
        hostname: "127.0.0.1",
        port: 0,
        socket: {
          data: (socket) => {
            socket.end();
          },
        },
      });
      try {
        const lost = await setup.formsWith({ SES_ENDPOINT: `http://127.0.0.1:${silent.port}` });
        const run = await (await setup.send({}, lost)).json();
        expect(run).toMatchObject({ sent: 0, failed: 0, unconfirmed: 2 });
      } finally {
        silent.stop(true);
      }
      const rerun = await (await setup.send()).json();
      expect(rerun).toMatchObject({ sent: 0, already_sent: 2 });
      for (const email of emails) expect(await setup.issuesTo(email)).toHaveLength(0);
    });
  });
});

describe("requests", () => {
  test("weeks that do not exist, have not begun or are long over are refused", async () => {
    const now = setup.forms.clock.now();
    const next = weekOf(new Date(now.getTime() + 7 * DAY)).name;
    const old = weekOf(new Date(now.getTime() - 6 * 7 * DAY)).name;
    const cases: [string, number, string | undefined][] = [
      ["2026-W60", 422, undefined],
      ["2026-7", 422, undefined],
      ["2021-W53", 422, "invalid_format"], // 2021 has 52 weeks
      [next, 422, "in_future"],
      [old, 422, "too_old"],
    ];
    for (const [week, status, reason] of cases) {
      const response = await setup.send({ week });
      expect(response.status).toBe(status);
      const body = await response.json();
      expect(body.error.code).toBe("validation_failed");
      if (reason) expect(body.error.fields[0].reason).toBe(reason);
    }
  });

  test("without email configured: 503 forms_unavailable, nothing recorded", async () => {
    const noMail = await setup.formsWith({ FORMS_FROM_EMAIL: undefined });
    const response = await setup.send({}, noMail);
    expect(response.status).toBe(503);
    expect((await response.json()).error.code).toBe("forms_unavailable");
  });

  test("needs the admin token", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-wrong-token"]) {
      const response = await setup.forms.handle(
        new Request("http://localhost/internal/v1/digest/send", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(authorization ? { authorization } : {}),
          },
          body: "{}",
        }),
      );
      expect(response.status).toBe(401);
    }
    expect(ADMIN_TOKEN).not.toBe("wrong-token-wrong-token");
    // Checked before the body: without the token, a malformed week is not even looked at.
    const unread = await setup.forms.handle(
      new Request("http://localhost/internal/v1/orgs/anyone/newsletter/send", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ week: "not-a-week" }),
      }),
    );
    expect(unread.status).toBe(401);
  });
});
