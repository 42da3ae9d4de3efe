import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  orgWithMembers,
  storyInReview,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/**
 * The lists of the web app as people read them: stories a page at a time and filtered by status
 * and by words of the title; dates that name their time zone; an audit log that names keys and
 * stories as people know them, with links; the person's own row among the members.
 */
describe("the web app's lists", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let owner: WebClient;
  let needle: string;
  const base = "/app/orgs/lists-org/stories";

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "lists-org", 0);
    for (let i = 0; i < 51; i++) {
      const made = await h.admin("POST", "/orgs/lists-org/stories", {
        type: "press_release",
        slug: `draft-${i}`,
        title: `Draft number ${i}`,
        summary: "A summary",
        body: [{ type: "paragraph", text: "A paragraph." }],
      });
      if (made.status !== 201) throw new Error(`story not made: ${made.status}`);
    }
    needle = await storyInReview(h, "lists-org", "the-needle");
    owner = await h.signedIn(org.members.owner);
  }, 180_000);
  afterAll(() => h?.close());

  const storyLinks = (text: string) => text.match(/href="\/app\/stories\/[0-9a-f-]{36}"/g) ?? [];

  test("stories come 50 a page, newest change first, with a link to the older ones", async () => {
    const first = await owner.get(base);
    expect(first.status).toBe(200);
    expect(storyLinks(first.text)).toHaveLength(50);
    expect(first.text).toContain(`href="/app/stories/${needle}"`);
    expect(first.text).toContain(`href="${base}?page=2">Older stories</a>`);
    const second = await owner.get(`${base}?page=2`);
    expect(storyLinks(second.text)).toHaveLength(2);
    expect(second.text).toContain(`href="${base}">Newer stories</a>`);
    expect(second.text).not.toContain("Older stories");
    const beyond = await owner.get(`${base}?page=9`);
    expect(storyLinks(beyond.text)).toHaveLength(0);
    expect(beyond.text).toContain("No story matches.");
  });

  test("stories filter by status and by words of the title or slug, the form keeping them", async () => {
    const inReview = await owner.get(`${base}?status=review_required`);
    expect(storyLinks(inReview.text)).toEqual([`href="/app/stories/${needle}"`]);
    expect(inReview.text).toContain('<option value="review_required" selected>');
    const byTitle = await owner.get(`${base}?q=${encodeURIComponent("number 1")}`);
    // Draft number 1 and 10 to 19.
    expect(storyLinks(byTitle.text)).toHaveLength(11);
    expect(byTitle.text).toMatch(/id="field-q" name="q" type="search"\s+value="number 1"/);
    const bySlug = await owner.get(`${base}?q=NEEDLE`);
    expect(storyLinks(bySlug.text)).toEqual([`href="/app/stories/${needle}"`]);
    // A pattern's own characters are taken as typed.
    expect(storyLinks((await owner.get(`${base}?q=%25`)).text)).toHaveLength(0);
    const both = await owner.get(`${base}?status=draft&q=needle`);
    expect(storyLinks(both.text)).toHaveLength(0);
    expect(both.text).toContain("No story matches.");
    expect(both.text).toContain(`<a href="${base}">Show every story</a>`);
  });

  test("dates name their time zone", async () => {
    const list = await owner.get(base);
    expect(list.text).toMatch(
      /<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/,
    );
    const members = await owner.get("/app/orgs/lists-org/members");
    expect(members.text).toMatch(/<time datetime="[^"]+Z">\d{4}-\d\d-\d\d UTC<\/time>/);
  });

  test("the audit log names the key and the story by what people know them by, with links", async () => {
    await owner.get("/app/orgs/lists-org/keys");
    const created = await owner.post("/app/orgs/lists-org/keys", {
      environment: "test",
      scopes: "stories:read",
      lifetime_days: "30",
    });
    expect(created.status).toBe(303);
    await owner.get(`/app/stories/${needle}`);
    expect((await owner.post(`/app/stories/${needle}/approve`)).status).toBe(303);
    const audit = await owner.get("/app/orgs/lists-org/audit");
    expect(audit.text).toMatch(
      /<a href="\/app\/orgs\/lists-org\/keys"><code>armk_test_…[A-Za-z0-9_-]{4}<\/code><\/a>/,
    );
    expect(audit.text).toContain(`<a href="/app/stories/${needle}">Title of the-needle</a>`);
  });

  test("the person's own row among the members says (you), and only that row", async () => {
    const members = await owner.get("/app/orgs/lists-org/members");
    expect(members.text).toContain(`<td>${org.members.owner} <strong>(you)</strong></td>`);
    expect(members.text.match(/\(you\)/g)).toHaveLength(1);
  });
});
