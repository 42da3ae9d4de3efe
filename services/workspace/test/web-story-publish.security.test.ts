import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEvents, stories } from "@newsroom/shared/db/schema";
import { and, eq } from "drizzle-orm";
import {
  orgWithMembers,
  storyInReview,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/**
 * Publishing from the story page, without the command line: an owner approves and publishes, and
 * the story's page links its public address (the house newsroom, or the organization's hosted
 * site); unpublishing asks first; an editor is refused (403) and another organization gets 404,
 * with nothing changed. That the public pages then serve the story is a flow across services:
 * test/flows/workspace-web-publish.test.ts.
 */
describe("publishing and unpublishing in the web app", () => {
  let h: WebHarness;
  let house: Awaited<ReturnType<typeof orgWithMembers>>;
  let owner: WebClient;

  beforeAll(async () => {
    h = await webHarness();
    // HOUSE_ORG: its newsroom is the public one at /v1/public/newsroom and /newsroom/{slug}.
    house = await orgWithMembers(h, "armage", 0);
    owner = await h.signedIn(house.members.owner);
  }, 120_000);
  afterAll(() => h?.close());

  const db = () => h.runtime.database.db;
  const statusOf = async (id: string) =>
    (await db().select().from(stories).where(eq(stories.id, id)))[0]!.status;

  test("an owner approves, publishes (the page links the public page), then unpublishes after confirming", async () => {
    const id = await storyInReview(h, "armage", "from-the-browser");
    await owner.get(`/app/stories/${id}`);
    expect((await owner.post(`/app/stories/${id}/approve`)).status).toBe(303);
    const approved = await owner.get(`/app/stories/${id}`);
    expect(approved.text).toContain(`action="/app/stories/${id}/publish"`);

    const published = await owner.post(`/app/stories/${id}/publish`);
    expect(published.status).toBe(303);
    expect(published.headers.get("location")).toBe(`/app/stories/${id}?done=published`);
    expect(await statusOf(id)).toBe("published");
    const page = await owner.get(`/app/stories/${id}?done=published`);
    expect(page.text).toContain("The story is published.");
    const link = `${h.url}/newsroom/from-the-browser`;
    expect(page.text).toContain(`href="${link}"`);
    const [recorded] = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectId, id), eq(auditEvents.action, "story.publish")));
    expect(recorded?.actor).toStartWith("person:");
    // Pressed again (a second tab): the story moved on, nothing changes.
    const twice = await owner.post(`/app/stories/${id}/publish`);
    expect(twice.status).toBe(409);
    expect(twice.text).toContain("Nothing changed: A story in published cannot publish.");

    // Without the confirmation, a page asks first and nothing changes.
    const asked = await owner.post(`/app/stories/${id}/unpublish`);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('name="confirm" value="yes"');
    expect(await statusOf(id)).toBe("published");
    const unpublished = await owner.post(`/app/stories/${id}/unpublish`, { confirm: "yes" });
    expect(unpublished.status).toBe(303);
    expect(await statusOf(id)).toBe("unpublished");
    // Unpublished, its approved version may be published again.
    const again = await owner.get(`/app/stories/${id}?done=unpublished`);
    expect(again.text).toContain("no longer on the public newsroom");
    expect(again.text).toContain(`action="/app/stories/${id}/publish"`);
  });

  test("a client organization's story is linked on its hosted site", async () => {
    const client = await orgWithMembers(h, "client-pub", 0);
    await h.admin("POST", "/orgs/client-pub/sites", {
      site: "client-pub-site",
      name: "Client news",
      publisher: "Client",
      enabled: true,
    });
    const id = await storyInReview(h, "client-pub", "client-story");
    await h.admin("POST", `/stories/${id}/transitions`, { action: "approve" });
    const clientOwner = await h.signedIn(client.members.owner);
    await clientOwner.get(`/app/stories/${id}`);
    expect((await clientOwner.post(`/app/stories/${id}/publish`)).status).toBe(303);
    const page = await clientOwner.get(`/app/stories/${id}`);
    const link = `${h.url}/newsrooms/client-pub-site/client-story`;
    expect(page.text).toContain(`href="${link}"`);

    // With an active hostname, that is the canonical address; the hosted one still serves.
    await h.admin("POST", "/sites/client-pub-site/hostnames", {
      hostname: "news.client-pub.example",
    });
    await h.admin("POST", "/sites/client-pub-site/hostnames/news.client-pub.example/activate");
    const withHostname = await clientOwner.get(`/app/stories/${id}`);
    expect(withHostname.text).toContain('href="https://news.client-pub.example/client-story"');
    expect(withHostname.text).toContain(`href="${link}"`);
  });

  test("an editor gets 403 for publish and unpublish, and nothing changes", async () => {
    const editor = await h.signedIn(house.members.editor);
    const approved = await storyInReview(h, "armage", "editor-publish");
    await h.admin("POST", `/stories/${approved}/transitions`, { action: "approve" });
    const page = await editor.get(`/app/stories/${approved}`);
    expect(page.text).not.toContain(`/app/stories/${approved}/publish`);
    expect((await editor.post(`/app/stories/${approved}/publish`)).status).toBe(403);
    expect(await statusOf(approved)).toBe("approved");

    const live = await storyInReview(h, "armage", "editor-unpublish");
    await h.admin("POST", `/stories/${live}/transitions`, { action: "approve" });
    await h.admin("POST", `/stories/${live}/transitions`, { action: "publish" });
    await editor.get(`/app/stories/${live}`);
    const refused = await editor.post(`/app/stories/${live}/unpublish`, { confirm: "yes" });
    expect(refused.status).toBe(403);
    expect(await statusOf(live)).toBe("published");
  });

  test("another organization's owner gets 404, and nothing changes", async () => {
    const other = await orgWithMembers(h, "elsewhere-pub", 0);
    const stranger = await h.signedIn(other.members.owner);
    const approved = await storyInReview(h, "armage", "not-theirs");
    await h.admin("POST", `/stories/${approved}/transitions`, { action: "approve" });
    await stranger.get("/app/");
    expect((await stranger.post(`/app/stories/${approved}/publish`)).status).toBe(404);
    expect(await statusOf(approved)).toBe("approved");
    await h.admin("POST", `/stories/${approved}/transitions`, { action: "publish" });
    const refused = await stranger.post(`/app/stories/${approved}/unpublish`, { confirm: "yes" });
    expect(refused.status).toBe(404);
    expect(await statusOf(approved)).toBe("published");
  });
});
