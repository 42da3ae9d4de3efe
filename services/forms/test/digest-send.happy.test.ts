import { describe, expect, test } from "bun:test";
import { digestSubscriptions } from "@newsroom/shared/db/schema";
import { insertOrganization } from "@newsroom/shared/testing/builders";
import { eq } from "drizzle-orm";
import { weekOf } from "../src/mailings/week.ts";
import { digestWorld } from "./support/digest.ts";
import { publishedStory } from "./support/fixtures.ts";
import { address, headerOf, random, unsubscribeLinkIn } from "./support/harness.ts";

const { setup } = digestWorld();

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const NEWSROOM = "https://newsrooms.example.test/newsroom";

describe("npm run admin -- digest send", () => {
  test("sends the week's house items to each confirmed subscriber once, with their own link", async () => {
    const { forms, house } = setup;
    const db = forms.database.db;
    const now = forms.clock.now().getTime();
    const week = weekOf(forms.clock.now());

    const readers = [address("reader"), address("reader"), address("reader")];
    for (const reader of readers) await setup.subscriber(reader);
    const pending = address("pending");
    await forms.post("/v1/public/newsletter/subscribe", {
      email: pending,
      consent: true,
      submission_id: crypto.randomUUID(),
      started_at: now - 10_000,
    });
    const gone = address("gone");
    await setup.subscriber(gone);
    await db
      .update(digestSubscriptions)
      .set({ status: "unsubscribed" })
      .where(eq(digestSubscriptions.email, gone));

    const tag = random();
    await publishedStory(db, house.slug, {
      slug: `second-${tag}`,
      title: "Second <story> & more",
      summary: "What happened second.",
      publishedAt: new Date(now - 2 * HOUR),
    });
    await publishedStory(db, house.slug, {
      slug: `first-${tag}`,
      title: "First story",
      summary: "What happened first.",
      publishedAt: new Date(week.start.getTime() + 1000),
    });
    await publishedStory(db, house.slug, {
      slug: `last-week-${tag}`,
      title: "Last week's story",
      publishedAt: new Date(week.start.getTime() - 1000),
    });
    const other = await insertOrganization(db, {
      slug: `other-${tag}`,
      name: "Other",
      newsroomRunning: true,
    });
    await publishedStory(db, other.slug, { slug: `theirs-${tag}`, title: "Not the house's" });

    const response = await setup.send();
    expect(response.status).toBe(200);
    const run = await response.json();
    expect(run).toMatchObject({
      object: "digest_run",
      week: week.name,
      starts_at: week.start.toISOString(),
      ends_at: week.end.toISOString(),
      items: 2,
      sent: readers.length,
      already_sent: 0,
      failed: 0,
      unconfirmed: 0,
      stopped: false,
    });

    const links = new Set<string>();
    for (const reader of readers) {
      const issues = await setup.issuesTo(reader);
      expect(issues).toHaveLength(1);
      const issue = issues[0]!;
      expect(issue.subject).toBe(
        `${house.name} weekly digest: 2 stories, week of ${new Intl.DateTimeFormat("en-GB", {
          day: "numeric",
          month: "long",
          year: "numeric",
          timeZone: "UTC",
        }).format(week.start)}`,
      );
      const text = issue.body.text!;
      expect(text.indexOf("First story")).toBeGreaterThan(-1);
      expect(text.indexOf("First story")).toBeLessThan(text.indexOf("Second <story> & more"));
      expect(text).toContain(`${NEWSROOM}/first-${tag}`);
      expect(text).toContain("What happened second.");
      expect(text).not.toContain("Last week's story");
      expect(text).not.toContain("Not the house's");
      expect(issue.body.html).toContain("Second &lt;story&gt; &amp; more");
      expect(issue.body.html).not.toContain("<story>");
      expect(headerOf(issue, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
      const link = unsubscribeLinkIn(issue);
      expect(issue.body.html).toContain(`https://api.example.test${link}`);
      links.add(link);
    }
    expect(links.size).toBe(readers.length);
    expect(await setup.issuesTo(pending)).toHaveLength(0);
    expect(await setup.issuesTo(gone)).toHaveLength(0);

    // The same week again: nothing new goes out.
    const again = await (await setup.send()).json();
    expect(again).toMatchObject({ sent: 0, already_sent: readers.length, items: 2 });
    for (const reader of readers) expect(await setup.issuesTo(reader)).toHaveLength(1);
  });

  test("a copy's link unsubscribes its reader only; next week goes to the others", async () => {
    const { forms, house } = setup;
    const db = forms.database.db;
    const readers = [address("next"), address("next")];
    for (const reader of readers) await setup.subscriber(reader);
    await publishedStory(db, house.slug, {
      slug: `this-${random()}`,
      title: "This week",
      publishedAt: new Date(forms.clock.now().getTime() - HOUR),
    });
    await setup.send();
    const link = unsubscribeLinkIn((await setup.issuesTo(readers[0]!))[0]);
    const oneClick = await forms.post(link, "List-Unsubscribe=One-Click", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(oneClick.status).toBe(200);

    forms.clock.advance(7 * DAY);
    await publishedStory(db, house.slug, {
      slug: `next-${random()}`,
      title: "Next week",
      publishedAt: new Date(forms.clock.now().getTime() - HOUR),
    });
    const run = await (await setup.send()).json();
    expect(run.week).toBe(weekOf(forms.clock.now()).name);
    expect(run.items).toBe(1);
    expect(await setup.issuesTo(readers[0]!)).toHaveLength(1);
    const second = await setup.issuesTo(readers[1]!);
    expect(second).toHaveLength(2);
    expect(second[1]!.body.text).toContain("Next week");
    expect(second[1]!.body.text).not.toContain("This week");
    forms.clock.advance(-7 * DAY);
  });

  test("`--week` sends a past week", async () => {
    const { forms, house } = setup;
    const reader = address("past");
    await setup.subscriber(reader);
    const lastWeek = weekOf(new Date(forms.clock.now().getTime() - 7 * DAY));
    await publishedStory(forms.database.db, house.slug, {
      slug: `past-${random()}`,
      title: "From last week",
      publishedAt: new Date(lastWeek.start.getTime() + DAY),
    });
    const run = await (await setup.send({ week: lastWeek.name })).json();
    expect(run.week).toBe(lastWeek.name);
    const issues = await setup.issuesTo(reader);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.body.text).toContain("From last week");
  });
});
