import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assets, stories, storyVersions } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { desc, eq } from "drizzle-orm";
import { orgWithMembers, type WebClient, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * The editors' desk without script: a new story from the form (slug proposed from the title),
 * blocks added, moved and removed by form posts that save nothing, Save through the story
 * service (a new version), submit for review, the approved-story warning, a stale save refused
 * with what changed, and the refusals: a viewer (403) and another organization (404).
 */
describe("writing stories in the web app", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let editor: WebClient;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "desk", 0);
    editor = await h.signedIn(org.members.editor);
  }, 120_000);
  afterAll(() => h?.close());

  const db = () => h.runtime.database.db;
  const storyRow = async (id: string) =>
    (await db().select().from(stories).where(eq(stories.id, id)))[0]!;
  const latest = async (id: string) =>
    (
      await db()
        .select()
        .from(storyVersions)
        .where(eq(storyVersions.storyId, id))
        .orderBy(desc(storyVersions.version))
        .limit(1)
    )[0]!;
  const blockFields = (blocks: Record<string, string>[]) => {
    const fields: Record<string, string> = { block_count: String(blocks.length) };
    blocks.forEach((block, i) => {
      for (const [key, value] of Object.entries(block)) fields[`block-${i}-${key}`] = value;
    });
    return fields;
  };
  const newPath = "/app/orgs/desk/stories/new";

  test("a new story: blocks added, moved and removed by posts, then created with the slug proposed", async () => {
    const form = await editor.get(newPath);
    expect(form.status).toBe(200);
    expect(form.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(form.text).toContain('name="block-0-type" value="paragraph"');

    const base = { type: "press_release", title: "Our new office, in Ghent!", slug: "" };
    const added = await editor.post(newPath, {
      ...base,
      ...blockFields([{ type: "paragraph", text: "First words." }]),
      op: "add",
      add_type: "heading",
    });
    expect(added.status).toBe(200);
    expect(added.text).toContain('name="block-1-type" value="heading"');
    expect(added.text).toContain("First words.");

    const moved = await editor.post(newPath, {
      ...base,
      ...blockFields([
        { type: "paragraph", text: "First words." },
        { type: "heading", text: "A heading", level: "3" },
      ]),
      op: "up:1",
    });
    expect(moved.text).toMatch(
      /name="block-0-type" value="heading"[\s\S]*A heading[\s\S]*name="block-1-type" value="paragraph"/,
    );

    const three = blockFields([
      { type: "heading", text: "A heading", level: "3" },
      { type: "paragraph", text: "First words." },
      { type: "quote", text: "Doomed", attribution: "Nobody" },
    ]);
    const asked = await editor.post(newPath, { ...base, ...three, op: "ask-remove:2" });
    expect(asked.text).toContain('value="remove:2"');
    expect(asked.text).toContain("Doomed");
    const removed = await editor.post(newPath, { ...base, ...three, op: "remove:2" });
    expect(removed.text).not.toContain("Doomed");
    expect(removed.text).toContain('name="block_count" value="2"');
    // None of these steps wrote anything.
    expect(await db().select().from(stories)).toHaveLength(0);

    const created = await editor.post(newPath, {
      ...base,
      summary: "We moved.",
      topics: "Offices, Ghent",
      featured: "yes",
      ...blockFields([
        { type: "heading", text: "A heading", level: "3" },
        { type: "paragraph", text: "First words with *emphasis*." },
        { type: "list", items: "one\ntwo\n", ordered: "yes" },
      ]),
      op: "save",
    });
    expect(created.status).toBe(303);
    const id = /\/app\/stories\/([0-9a-f-]{36})\/edit\?done=created/.exec(
      created.headers.get("location") ?? "",
    )?.[1];
    expect(id).toBeDefined();
    const row = await storyRow(id!);
    expect(row.slug).toBe("our-new-office-in-ghent");
    expect(row.status).toBe("draft");
    expect(row.featured).toBe(true);
    const story = await h.admin("GET", `/stories/${id}`);
    expect(story.body.topics.sort()).toEqual(["ghent", "offices"]);
    expect((await latest(id!)).body).toEqual([
      { type: "heading", text: "A heading", level: 3 },
      { type: "paragraph", text: "First words with *emphasis*." },
      { type: "list", items: ["one", "two"], ordered: true },
    ]);
  });

  test("a refused field is shown beside it, and a taken slug is refused with nothing written", async () => {
    const refused = await editor.post(newPath, {
      type: "in_the_news",
      title: "",
      slug: "Not A Slug!",
      external_url: "javascript:alert(1)",
      ...blockFields([{ type: "image", url: "ftp://nope" }]),
      op: "save",
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('id="field-title-error"');
    expect(refused.text).toContain('id="field-slug-error"');
    expect(refused.text).toContain('id="field-external_url-error"');
    expect(refused.text).toContain('id="block-0-error"');

    await h.admin("POST", "/orgs/desk/stories", { type: "insight", slug: "taken", title: "Taken" });
    const taken = await editor.post(newPath, {
      type: "insight",
      title: "Another",
      slug: "taken",
      ...blockFields([]),
      op: "save",
    });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain("Another story of the organization has this address");
  });

  test("editing writes a new version, warns about an approved story, and submits for review", async () => {
    const created = await h.admin("POST", "/orgs/desk/stories", {
      type: "press_release",
      slug: "to-edit",
      title: "To edit",
      body: [{ type: "paragraph", text: "Old text." }],
    });
    const id = created.body.id as string;
    await h.admin("POST", `/stories/${id}/transitions`, { action: "submit" });
    await h.admin("POST", `/stories/${id}/transitions`, { action: "approve" });

    const page = await editor.get(`/app/stories/${id}/edit`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("sends it back to draft");
    expect(page.text).toContain('name="base_version" value="1"');
    expect(page.text).toContain("Old text.");

    const saved = await editor.post(`/app/stories/${id}/edit`, {
      base_version: "1",
      title: "Edited",
      ...blockFields([{ type: "paragraph", text: "New text." }]),
      op: "save",
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`/app/stories/${id}/edit?done=saved`);
    const row = await storyRow(id);
    expect(row.currentVersion).toBe(2);
    expect(row.status).toBe("draft");
    expect((await latest(id)).title).toBe("Edited");

    const again = await editor.get(`/app/stories/${id}/edit?done=saved`);
    expect(again.text).toContain("Saved as a new version.");
    const submitted = await editor.post(`/app/stories/${id}/submit`);
    expect(submitted.status).toBe(303);
    expect((await storyRow(id)).status).toBe("review_required");
  });

  test("a save based on an older version is refused with what changed, never written over", async () => {
    const created = await h.admin("POST", "/orgs/desk/stories", {
      type: "press_release",
      slug: "two-writers",
      title: "Two writers",
      body: [{ type: "paragraph", text: "Shared start." }],
    });
    const id = created.body.id as string;
    const second = await h.signedIn(org.members.admin);
    await editor.get(`/app/stories/${id}/edit`);
    await second.get(`/app/stories/${id}/edit`);
    const first = await second.post(`/app/stories/${id}/edit`, {
      base_version: "1",
      title: "Two writers",
      ...blockFields([{ type: "paragraph", text: "Their sentence." }]),
      op: "save",
    });
    expect(first.status).toBe(303);

    const stale = await editor.post(`/app/stories/${id}/edit`, {
      base_version: "1",
      title: "Two writers",
      ...blockFields([{ type: "paragraph", text: "My sentence." }]),
      op: "save",
    });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain("Someone else saved version 2 meanwhile");
    expect(stale.text).toContain("Added: Their sentence.");
    expect(stale.text).toContain("Removed: Shared start.");
    expect(stale.text).toContain("My sentence.");
    expect(stale.text).toContain('name="base_version" value="2"');
    expect((await storyRow(id)).currentVersion).toBe(2);
    expect((await latest(id)).body).toEqual([{ type: "paragraph", text: "Their sentence." }]);
  });

  test("an image block names an asset of the organization; the review page shows it marked until cleared", async () => {
    const orgRow = await h.admin("GET", "/orgs/desk");
    const assetId = newId();
    await db().insert(assets).values({
      id: assetId,
      organizationId: orgRow.body.id,
      url: "https://cdn.example/office.jpg",
      alt: "The new office",
      cleared: false,
    });
    const form = await editor.get(newPath);
    expect(form.text).toContain(
      `<option value="${assetId}">The new office (not cleared yet)</option>`,
    );
    expect(form.text).toContain('href="/app/orgs/desk/assets"');
    const created = await editor.post(newPath, {
      type: "press_release",
      title: "With a picture",
      ...blockFields([{ type: "image", asset_id: assetId, caption: "Our *new* office" }]),
      op: "save",
    });
    expect(created.status).toBe(303);
    const id = /stories\/([0-9a-f-]{36})/.exec(created.headers.get("location")!)![1]!;
    expect((await latest(id)).body).toEqual([
      { type: "image", asset_id: assetId, caption: "Our *new* office" },
    ]);
    const review = await editor.get(`/app/stories/${id}`);
    expect(review.text).toContain('<img src="https://cdn.example/office.jpg" alt="The new office"');
    expect(review.text).toContain("Not cleared:");
    expect(review.text).toContain("<figcaption>Our <em>new</em> office</figcaption>");
    // The story comes before the decision buttons.
    await h.admin("POST", `/stories/${id}/transitions`, { action: "submit" });
    const approver = await h.signedIn(org.members.approver);
    const queue = await approver.get(`/app/stories/${id}`);
    expect(queue.text.indexOf("As readers will see it")).toBeLessThan(
      queue.text.indexOf(`action="/app/stories/${id}/approve"`),
    );
  });

  test("markup is escaped before it is marked up: no script, no javascript: link", async () => {
    const created = await editor.post(newPath, {
      type: "insight",
      title: "Hostile <b>title</b>",
      ...blockFields([
        {
          type: "paragraph",
          text: '<script>alert(1)</script> [click](javascript:alert(1)) [ok](https://example.com/?a="b") **bold**',
        },
      ]),
      op: "save",
    });
    expect(created.status).toBe(303);
    const id = /stories\/([0-9a-f-]{36})/.exec(created.headers.get("location")!)![1]!;
    const page = await editor.get(`/app/stories/${id}`);
    expect(page.text).not.toContain("<script>alert(1)");
    expect(page.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page.text).not.toContain('href="javascript:');
    expect(page.text).toContain(
      '<a href="https://example.com/?a=&quot;b&quot;" rel="noopener">ok</a>',
    );
    expect(page.text).toContain("<strong>bold</strong>");
    expect(page.text).not.toContain("<b>title</b>");
  });

  test("a viewer gets 403 and another organization's editor 404, with nothing changed", async () => {
    const created = await h.admin("POST", "/orgs/desk/stories", {
      type: "insight",
      slug: "guarded",
      title: "Guarded",
    });
    const id = created.body.id as string;
    const viewer = await h.signedIn(org.members.viewer);
    expect((await viewer.get(newPath)).status).toBe(403);
    expect((await viewer.get(`/app/stories/${id}/edit`)).status).toBe(403);
    await viewer.get("/app/");
    const fields = { base_version: "1", title: "Taken over", ...blockFields([]), op: "save" };
    expect((await viewer.post(`/app/stories/${id}/edit`, fields)).status).toBe(403);
    expect(
      (await viewer.post(newPath, { type: "insight", title: "Nope", op: "save" })).status,
    ).toBe(403);
    expect((await viewer.post(`/app/stories/${id}/submit`)).status).toBe(403);

    const other = await orgWithMembers(h, "desk-other", 0);
    const stranger = await h.signedIn(other.members.editor);
    expect((await stranger.get(`/app/stories/${id}/edit`)).status).toBe(404);
    expect((await stranger.get(newPath)).status).toBe(404);
    await stranger.get("/app/");
    expect((await stranger.post(`/app/stories/${id}/edit`, fields)).status).toBe(404);
    expect((await stranger.post(`/app/stories/${id}/submit`)).status).toBe(404);

    const row = await storyRow(id);
    expect(row.currentVersion).toBe(1);
    expect(row.status).toBe("draft");
    expect((await latest(id)).title).toBe("Guarded");
  });
});
