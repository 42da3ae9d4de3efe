import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assets } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { pngImage, uploadForm } from "../../services/workspace/test/support/images.ts";
import { orgWithMembers, type WebHarness, webHarness } from "../support/workspace-web-embedded.ts";

/**
 * A flow across services: the workspace's preview of a story version is public-read's item
 * template (called through the workspace's internal client), served to members only with
 * `noindex` and `Cache-Control: private, no-store`, on each of the organization's newsrooms; an
 * uncleared image shows there, marked, and on no public page; an uncleared upload loads from the
 * workspace's members-only asset route (its public address answers 404 until it is cleared).
 */
describe("previews in the workspace web app", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "preview-co", 0);
    await h.admin("POST", "/orgs/preview-co/sites", {
      site: "preview-site",
      name: "Preview Site",
      publisher: "Preview Co",
      enabled: true,
    });
  }, 120_000);
  afterAll(() => h?.close());

  test("an editor previews a draft on the organization's site; a stranger gets 404", async () => {
    const orgRow = await h.admin("GET", "/orgs/preview-co");
    const assetId = newId();
    const url = "https://cdn.example.com/preview-co/uncleared.jpg";
    await h.runtime.database.db.insert(assets).values({
      id: assetId,
      organizationId: orgRow.body.id,
      url,
      alt: "Not yet",
      cleared: false,
    });
    const created = await h.admin("POST", "/orgs/preview-co/stories", {
      type: "press_release",
      slug: "previewed",
      title: "Previewed story",
      body: [
        { type: "paragraph", text: "Some *words*." },
        { type: "image", asset_id: assetId },
      ],
    });
    const id = created.body.id as string;
    const editor = await h.signedIn(org.members.editor);
    const edit = await editor.get(`/app/stories/${id}/edit`);
    const path = `/app/stories/${id}/versions/1/preview?site=preview-site`;
    expect(edit.text).toContain(`href="${path.replace("&", "&amp;")}"`);

    const preview = await editor.get(path);
    expect(preview.status).toBe(200);
    expect(preview.headers.get("x-robots-tag")).toContain("noindex");
    expect(preview.headers.get("cache-control")).toBe("private, no-store");
    expect(preview.text).toContain("Preview of version 1 (draft)");
    expect(preview.text).toContain("Preview Site");
    expect(preview.text).toContain("Some <em>words</em>.");
    expect(preview.text).toContain(`<img src="${url}"`);
    expect(preview.text).toContain("Not cleared:");

    const publicPage = await fetch(`${h.url}/newsrooms/preview-site/previewed`);
    expect(publicPage.status).toBe(404);
    expect(await publicPage.text()).not.toContain(url);

    const other = await orgWithMembers(h, "preview-other", 0);
    const stranger = await h.signedIn(other.members.owner);
    expect((await stranger.get(path)).status).toBe(404);
  });

  test("an uncleared upload in a preview loads from the members-only route", async () => {
    const uploaded = await fetch(`${h.embedded.workspaceUrl}/internal/v1/orgs/preview-co/assets`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.adminToken}` },
      body: uploadForm({ bytes: await pngImage(800, 600), name: "dock.png" }, { alt: "The dock" }),
    });
    expect(uploaded.status).toBe(201);
    const asset = (await uploaded.json()) as { id: string; url: string };
    const created = await h.admin("POST", "/orgs/preview-co/stories", {
      type: "press_release",
      slug: "previewed-upload",
      title: "Previewed upload",
      body: [{ type: "image", asset_id: asset.id }],
    });
    const editor = await h.signedIn(org.members.editor);
    const preview = await editor.get(`/app/stories/${created.body.id}/versions/1/preview`);
    expect(preview.status).toBe(200);
    expect(preview.headers.get("content-security-policy")).toContain("img-src 'self'");
    const src = /<img src="([^"]+)"/.exec(preview.text)?.[1] ?? "";
    const name = asset.url.slice("/assets/".length);
    expect(src).toBe(`/app/assets/${asset.id}/${name}`);
    expect((await fetch(`${h.url}${asset.url}`)).status).toBe(404);

    const image = await editor.get(src);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toStartWith("image/");
    expect(image.headers.get("cache-control")).toContain("no-store");
    const anonymous = await fetch(`${h.url}${src}`, { redirect: "manual" });
    expect(anonymous.status).not.toBe(200);
    expect(anonymous.headers.get("content-type") ?? "").not.toStartWith("image/");
    const stranger = await h.signedIn((await orgWithMembers(h, "preview-third", 0)).members.owner);
    expect((await stranger.get(src)).status).toBe(404);
  });
});
