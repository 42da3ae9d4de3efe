import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assets, assetVariants, cmsPosts, cmsWrites } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import type { ServiceHandle } from "@newsroom/shared/service";
import type { StoryBody } from "@newsroom/shared/story-body";
import { insertStory, insertStoryVersion } from "@newsroom/shared/testing/builders";
import { eventually } from "@newsroom/shared/testing/eventually";
import { and, eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { type Fixture, internalCall, random, webhooksFixture } from "./support/harness.ts";
import { startWordPress, type WordPressSite } from "./support/wordpress.ts";

/** A 1×1 PNG: WordPress checks that an upload is an image it can read. */
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

interface WpPost {
  id: number;
  status: string;
  link: string;
  title: { raw: string };
  tags: number[];
  content: { raw: string; rendered: string };
}

let fx: Fixture;
let wp: WordPressSite;
let service: ServiceHandle;
let connectionId = "";

beforeAll(async () => {
  [fx, wp] = await Promise.all([
    webhooksFixture({ env: { WEBHOOK_RETRY_SCHEDULE: "0.05,0.05,0.05" } }),
    startWordPress(),
  ]);
  service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 50 });
  const created = await internalCall(service, fx, "POST", `/orgs/${fx.orgId}/cms-connections`, {
    kind: "wordpress",
    url: wp.url,
    username: wp.admin.username,
    application_password: wp.admin.applicationPassword,
  });
  expect(created.status).toBe(201);
  connectionId = created.body.id;
});

afterAll(async () => {
  await service?.stop();
  await wp?.stop();
  await fx?.close();
});

async function publishedStory(body: StoryBody, title = "Harbour reopens", topics: string[] = []) {
  const story = await insertStory(fx.db, fx.orgId, {
    type: "insight",
    slug: `s-${random()}`,
    title,
    summary: "The harbour is open again.",
    body,
    topics,
  });
  await fx.transition(story.id, { action: "submit" });
  await fx.transition(story.id, { action: "approve" });
  await fx.transition(story.id, { action: "publish" });
  return story;
}

async function mappingOf(storyId: string) {
  const [row] = await fx.db
    .select()
    .from(cmsPosts)
    .where(and(eq(cmsPosts.connectionId, connectionId), eq(cmsPosts.storyId, storyId)));
  return row ?? null;
}

async function writesOf(storyId: string) {
  return fx.db.select().from(cmsWrites).where(eq(cmsWrites.storyId, storyId));
}

const allDone = async (storyId: string, n: number) => {
  const writes = await writesOf(storyId);
  return writes.length === n && writes.every((w) => w.doneAt !== null);
};

/** Waits until the story has `n` writes, each done. */
function settled(storyId: string, n: number) {
  return eventually(() => allDone(storyId, n), {
    message: `${n} CMS writes of the story, done`,
    timeoutMs: 30_000,
  });
}

async function postsWithMarkerOf(storyId: string) {
  const mapping = await mappingOf(storyId);
  const { body } = await wp.rest<WpPost[]>(
    `/posts?search=${mapping!.marker}&status=publish,draft,trash&context=edit`,
  );
  return body;
}

describe("writing into a real WordPress", () => {
  test("the check says the connection works", async () => {
    const check = await internalCall(
      service,
      fx,
      "POST",
      `/orgs/${fx.orgId}/cms-connections/${connectionId}/check`,
    );
    expect(check.status).toBe(200);
    expect(check.body.ok).toBe(true);
    expect(check.body.connection.status).toBe("working");
    expect(JSON.stringify(check.body)).not.toContain(wp.admin.applicationPassword);
  });

  test("a published story becomes a published post in block markup that links back", async () => {
    const story = await publishedStory(
      [
        { type: "heading", text: "What changed", level: 3 },
        { type: "paragraph", text: "Ships <b>& boats</b> may enter." },
        { type: "paragraph", text: "From **Monday**, see [the notice](https://example.com/n)." },
        { type: "list", items: ["Ferries", "Tugs"], ordered: true },
        { type: "quote", text: "Finally.", attribution: "A skipper" },
        { type: "embed", url: "https://example.com/video?a=1&b=2" },
      ],
      "Harbour reopens",
      ["shipping", "city"],
    );
    await settled(story.id, 1);
    const mapping = await mappingOf(story.id);
    expect(mapping?.state).toBe("published");
    const { status, body: post } = await wp.rest<WpPost>(
      `/posts/${mapping!.remoteId}?context=edit`,
    );
    expect(status).toBe(200);
    expect(post.status).toBe("publish");
    expect(post.title.raw).toBe("Harbour reopens");
    const raw = post.content.raw;
    expect(raw).toContain('<!-- wp:heading {"level":3} -->\n<h3>What changed</h3>');
    expect(raw).toContain("<p>Ships &lt;b&gt;&amp; boats&lt;/b&gt; may enter.</p>");
    expect(raw).toContain('<!-- wp:list {"ordered":true} -->');
    expect(raw).toContain("<!-- wp:list-item -->\n<li>Ferries</li>");
    expect(raw).toContain("<cite>A skipper</cite>");
    expect(raw).toContain('<a href="https://example.com/video?a=1&amp;b=2">');
    expect(raw).not.toContain("<b>");
    expect(raw).toContain(
      '<p>From <strong>Monday</strong>, see <a href="https://example.com/n" rel="noopener">the notice</a>.</p>',
    );
    expect(raw).toMatch(/Originally published at <a href="http:\/\/[^"]+\/s-[a-z0-9]+">/);
    expect((await writesOf(story.id))[0]?.performed).toBe("create");
    // The topics as tags.
    const { body: tags } = await wp.rest<{ id: number; slug: string }[]>("/tags");
    const tagged = tags.filter((tag) => post.tags.includes(tag.id)).map((tag) => tag.slug);
    expect(tagged.sort()).toEqual(["city", "shipping"]);
  });

  test("a new published version updates the same post", async () => {
    const story = await publishedStory([{ type: "paragraph", text: "First words." }]);
    await settled(story.id, 1);
    const first = await mappingOf(story.id);
    await fx.transition(story.id, { action: "unpublish" });
    await insertStoryVersion(fx.db, story.id, {
      title: "Harbour reopens, with limits",
      body: [{ type: "paragraph", text: "Second words." }],
    });
    await fx.transition(story.id, { action: "submit" });
    await fx.transition(story.id, { action: "approve" });
    await fx.transition(story.id, { action: "publish" });
    await settled(story.id, 3);
    const second = await mappingOf(story.id);
    expect(second?.remoteId).toBe(first!.remoteId);
    expect(second?.writtenVersion).toBe(2);
    const { body: post } = await wp.rest<WpPost>(`/posts/${first!.remoteId}?context=edit`);
    expect(post.status).toBe("publish");
    expect(post.title.raw).toBe("Harbour reopens, with limits");
    expect(post.content.raw).toContain("Second words.");
    expect(post.content.raw).not.toContain("First words.");
    expect(await postsWithMarkerOf(story.id)).toHaveLength(1);
  });

  test("unpublishing makes the post a draft, or puts it in the trash", async () => {
    const drafted = await publishedStory([{ type: "paragraph", text: "To be drafted." }]);
    await settled(drafted.id, 1);
    await fx.transition(drafted.id, { action: "unpublish" });
    await settled(drafted.id, 2);
    const draftMapping = await mappingOf(drafted.id);
    expect(draftMapping?.state).toBe("unpublished");
    const { body: draft } = await wp.rest<WpPost>(`/posts/${draftMapping!.remoteId}?context=edit`);
    expect(draft.status).toBe("draft");

    const patched = await internalCall(
      service,
      fx,
      "PATCH",
      `/orgs/${fx.orgId}/cms-connections/${connectionId}`,
      { unpublish_mode: "trash" },
    );
    expect(patched.body.unpublish_mode).toBe("trash");
    const trashed = await publishedStory([{ type: "paragraph", text: "To be trashed." }]);
    await settled(trashed.id, 1);
    await fx.transition(trashed.id, { action: "unpublish" });
    await settled(trashed.id, 2);
    const trashMapping = await mappingOf(trashed.id);
    const { body: trash } = await wp.rest<WpPost>(`/posts/${trashMapping!.remoteId}?context=edit`);
    expect(trash.status).toBe("trash");
    // Published again: the trashed post comes back, the same post.
    await fx.transition(trashed.id, { action: "publish" });
    await settled(trashed.id, 3);
    const { body: back } = await wp.rest<WpPost>(`/posts/${trashMapping!.remoteId}?context=edit`);
    expect(back.status).toBe("publish");
    expect(await postsWithMarkerOf(trashed.id)).toHaveLength(1);
    await internalCall(service, fx, "PATCH", `/orgs/${fx.orgId}/cms-connections/${connectionId}`, {
      unpublish_mode: "draft",
    });
  });

  test("a cleared image is uploaded once and the body points at the media library", async () => {
    const assetId = newId();
    await fx.db.insert(assets).values({
      id: assetId,
      organizationId: fx.orgId,
      url: `/assets/${assetId}`,
      alt: "The harbour at dawn",
      cleared: true,
      contentType: "image/png",
    });
    await fx.db.insert(assetVariants).values({
      assetId,
      organizationId: fx.orgId,
      name: `${random()}${random()}abcd-1.png`,
      contentType: "image/png",
      width: 1,
      height: 1,
      bytes: PNG.byteLength,
      data: PNG,
    });
    const mediaBefore = (await wp.rest<unknown[]>("/media?per_page=100")).body.length;
    const image = { type: "image" as const, asset_id: assetId, alt: "Dawn <over> the harbour" };
    const first = await publishedStory([image, { type: "paragraph", text: "One." }]);
    await settled(first.id, 1);
    const second = await publishedStory([{ type: "paragraph", text: "Two." }, image]);
    await settled(second.id, 1);
    const media = (await wp.rest<{ id: number; source_url: string }[]>("/media?per_page=100")).body;
    expect(media.length).toBe(mediaBefore + 1);
    const uploaded = media[0]!;
    for (const story of [first, second]) {
      const mapping = await mappingOf(story.id);
      const { body: post } = await wp.rest<WpPost>(`/posts/${mapping!.remoteId}?context=edit`);
      expect(post.content.raw).toContain(`<!-- wp:image {"id":${uploaded.id}} -->`);
      expect(post.content.raw).toContain(
        `<img src="${uploaded.source_url}" alt="Dawn &lt;over&gt; the harbour" class="wp-image-${uploaded.id}"/>`,
      );
    }
  });

  test("a crash between the remote create and the mapping makes no second post", async () => {
    const story = await publishedStory([{ type: "paragraph", text: "Written once." }]);
    await settled(story.id, 1);
    const mapping = await mappingOf(story.id);
    // The worker died after WordPress created the post, before the mapping was recorded.
    await fx.db
      .delete(cmsPosts)
      .where(and(eq(cmsPosts.connectionId, connectionId), eq(cmsPosts.storyId, story.id)));
    await fx.db
      .update(cmsWrites)
      .set({ doneAt: null, performed: null })
      .where(eq(cmsWrites.storyId, story.id));
    await settled(story.id, 1);
    const again = await mappingOf(story.id);
    expect(again?.remoteId).toBe(mapping!.remoteId);
    expect((await writesOf(story.id))[0]?.performed).toBe("update");
    expect(await postsWithMarkerOf(story.id)).toHaveLength(1);
  });
});
