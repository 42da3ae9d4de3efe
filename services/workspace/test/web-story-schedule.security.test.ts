import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stories } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import {
  orgWithMembers,
  storyInReview,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/**
 * Scheduling from the story page: an approver picks a date, a time and a time zone (the form
 * works without script: the zone select defaults to UTC; a script picks the browser's zone); the
 * page shows the time in that zone and in UTC; Unschedule asks first. Refusals sit beside the
 * fields (422). An editor is refused (403) and another organization gets 404, nothing changed. A
 * story the scheduler failed shows why.
 */
describe("scheduling in the web app", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let approver: WebClient;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "sched-web", 0);
    approver = await h.signedIn(org.members.approver);
  }, 120_000);
  afterAll(() => h?.close());

  const db = () => h.runtime.database.db;
  const rowOf = async (id: string) =>
    (await db().select().from(stories).where(eq(stories.id, id)))[0]!;

  async function approvedStory(slug: string): Promise<string> {
    const id = await storyInReview(h, "sched-web", slug);
    await h.admin("POST", `/stories/${id}/transitions`, {
      action: "approve",
      actor_role: "approver",
    });
    return id;
  }

  /** The wall-clock date (YYYY-MM-DD) and time (HH:MM) of `at` in `zone`. */
  function wallClock(at: Date, zone: string) {
    const date = new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(at);
    const time = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(at);
    return { date, time };
  }

  test("an approver schedules in Paris time, sees it in Paris and UTC, and unschedules after confirming", async () => {
    const id = await approvedStory("scheduled-in-paris");
    const page = await approver.get(`/app/stories/${id}`);
    expect(page.text).toContain(`action="/app/stories/${id}/schedule"`);
    expect(page.text).toMatch(/<select id="field-zone" name="time_zone" data-browser-zone>/);
    expect(page.text).toContain("<option selected>UTC</option>");
    expect(page.text).toContain('<script src="/app/time-zone.js" defer></script>');

    const at = new Date(Math.ceil((Date.now() + 2 * 3_600_000) / 60_000) * 60_000);
    const scheduled = await approver.post(`/app/stories/${id}/schedule`, {
      ...wallClock(at, "Europe/Paris"),
      time_zone: "Europe/Paris",
    });
    expect(scheduled.status).toBe(303);
    expect(scheduled.headers.get("location")).toBe(
      `/app/stories/${id}?tz=Europe%2FParis&done=scheduled`,
    );
    const row = await rowOf(id);
    expect(row.status).toBe("scheduled");
    expect(row.publishAt?.toISOString()).toBe(at.toISOString());
    expect(row.scheduledBy).not.toBeNull();

    const shown = await approver.get(`/app/stories/${id}?tz=Europe%2FParis&done=scheduled`);
    expect(shown.text).toContain("The story is scheduled");
    const paris = wallClock(at, "Europe/Paris");
    expect(shown.text).toContain(`${paris.date} ${paris.time} (Europe/Paris, UTC+0`);
    expect(shown.text).toContain(`${at.toISOString().slice(0, 16).replace("T", " ")} UTC`);

    const asked = await approver.post(`/app/stories/${id}/unschedule`);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('name="confirm" value="yes"');
    expect((await rowOf(id)).status).toBe("scheduled");
    const done = await approver.post(`/app/stories/${id}/unschedule`, { confirm: "yes" });
    expect(done.status).toBe(303);
    const back = await rowOf(id);
    expect(back.status).toBe("approved");
    expect(back.publishAt).toBeNull();
  });

  test("too soon, or no date: refused beside the fields, with what was sent kept", async () => {
    const id = await approvedStory("scheduled-too-soon");
    const soon = await approver.post(`/app/stories/${id}/schedule`, {
      ...wallClock(new Date(), "UTC"),
      time_zone: "UTC",
    });
    expect(soon.status).toBe(422);
    expect(soon.text).toContain('id="field-publish-at-error"');
    expect(soon.text).toContain("at least one minute ahead");
    const empty = await approver.post(`/app/stories/${id}/schedule`, {
      date: "",
      time: "09:00",
      time_zone: "Asia/Tokyo",
    });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain("Choose a date and a time.");
    expect(empty.text).toContain("<option selected>Asia/Tokyo</option>");
    expect((await rowOf(id)).status).toBe("approved");
  });

  test("an editor gets 403 and another organization 404, and nothing changes", async () => {
    const id = await approvedStory("scheduled-refused");
    const form = { ...wallClock(new Date(Date.now() + 3_600_000), "UTC"), time_zone: "UTC" };
    const editor = await h.signedIn(org.members.editor);
    await editor.get(`/app/stories/${id}`);
    expect((await editor.post(`/app/stories/${id}/schedule`, form)).status).toBe(403);
    const other = await orgWithMembers(h, "sched-web-other", 0);
    const stranger = await h.signedIn(other.members.owner);
    await stranger.get("/app/");
    expect((await stranger.post(`/app/stories/${id}/schedule`, form)).status).toBe(404);
    expect((await rowOf(id)).status).toBe("approved");
  });

  test("a story the scheduler failed shows why, and may be scheduled again", async () => {
    const id = await approvedStory("scheduled-failed");
    await db()
      .update(stories)
      .set({
        status: "failed",
        publishAt: new Date(Date.now() - 3_600_000),
        publishFailure: "Not published within 15 minutes of its time.",
      })
      .where(eq(stories.id, id));
    const page = await approver.get(`/app/stories/${id}`);
    expect(page.text).toContain("Publication failed: Not published within 15 minutes of its time.");
    expect(page.text).toContain(`action="/app/stories/${id}/schedule"`);
    expect(page.text).toContain(`action="/app/stories/${id}/publish"`);
  });
});
