import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodeJwt, decodeProtectedHeader } from "jose";
import type { CmsPost, RemoteImage } from "../src/cms/connector.ts";
import { GhostConnector, markerTagSlug } from "../src/cms/ghost/connector.ts";
import { type GhostAdminServer, startGhostAdminServer } from "./support/ghost-admin-server.ts";

// Ghost 6 needs Node 22: these run against the stand-in Admin API server (see its header).
let ghost: GhostAdminServer;
let connector: GhostConnector;

beforeAll(() => {
  ghost = startGhostAdminServer();
  connector = new GhostConnector({ url: ghost.url(), adminApiKey: ghost.adminApiKey });
});

afterAll(async () => {
  await ghost.stop();
});

const ASSET_ID = "0b8f7a2e-6c1d-4e7a-9d5b-3f2a1c0e9b84";

function storyPost(marker: string, change: Partial<CmsPost> = {}): CmsPost {
  return {
    marker,
    title: "Harbour bridge reopens after repairs",
    slug: "harbour-bridge-reopens",
    summary: "The bridge carries traffic again from Monday.",
    body: [
      { type: "paragraph", text: "The bridge reopens **on Monday**, the council said." },
      { type: "heading", text: "What changes", level: 2 },
      { type: "list", items: ["Two lanes each way", "A *new* cycle path"] },
      { type: "quote", text: "We are glad it is done.", attribution: "The mayor" },
    ],
    canonicalUrl: "https://news.example.com/stories/harbour-bridge-reopens",
    publishedAt: "2026-11-26T08:00:00.000Z",
    topics: ["Transport", "City"],
    images: new Map(),
    ...change,
  };
}

describe("writing a story into Ghost", () => {
  test("create publishes the post from HTML, with its topics, the marker tag and the canonical URL", async () => {
    const remote = await connector.create(storyPost("story-1"));

    expect(remote.id).toMatch(/^[0-9a-f]{24}$/);
    expect(remote.updatedAt).not.toBeNull();
    expect(remote.url).toBe(`${ghost.url()}/harbour-bridge-reopens/`);
    const stored = ghost.posts.get(remote.id)!;
    expect(stored.status).toBe("published");
    expect(stored.title).toBe("Harbour bridge reopens after repairs");
    expect(stored.published_at).toBe("2026-11-26T08:00:00.000Z");
    expect(stored.custom_excerpt).toBe("The bridge carries traffic again from Monday.");
    expect(stored.canonical_url).toBe("https://news.example.com/stories/harbour-bridge-reopens");
    expect(stored.html).toContain(
      "<p>The bridge reopens <strong>on Monday</strong>, the council said.</p>",
    );
    expect(stored.html).toContain("<h2>What changes</h2>");
    expect(stored.html).toContain(
      "<ul><li>Two lanes each way</li><li>A <em>new</em> cycle path</li></ul>",
    );
    expect(stored.html).toContain(
      '<a href="https://news.example.com/stories/harbour-bridge-reopens">read the original story</a>',
    );
    expect(stored.tags.map((tag) => [tag.name, tag.visibility])).toEqual([
      ["Transport", "public"],
      ["City", "public"],
      ["#newsroom-story-1", "internal"],
    ]);

    const sent = ghost.requests.findLast((request) => request.method === "POST")!;
    expect(sent.path).toBe("/ghost/api/admin/posts/");
    expect(sent.search.get("source")).toBe("html");
    expect(sent.headers.get("accept-version")).toBe("v5.0");
  });

  test("each request carries a fresh token: HS256, kid the key's id, aud /admin/, five minutes", async () => {
    await connector.findByMarker("anything");
    const header = ghost.requests.at(-1)!.headers.get("authorization")!;
    expect(header).toStartWith("Ghost ");
    const token = header.slice("Ghost ".length);
    expect(decodeProtectedHeader(token)).toEqual({ alg: "HS256", typ: "JWT", kid: ghost.key.id });
    const claims = decodeJwt(token);
    expect(claims.aud).toBe("/admin/");
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(60);
    expect(header).not.toContain(ghost.key.secret);
  });

  test("findByMarker finds the post by its internal tag, even after editors changed it in Ghost", async () => {
    const created = await connector.create(storyPost("story-2", { slug: "second-story" }));
    ghost.editInGhost(created.id, {
      title: "Edited in Ghost",
      slug: "tidied-by-an-editor",
      status: "draft",
    });

    // A connector made afresh, as after a crash between the write and recording it.
    const again = new GhostConnector({ url: `${ghost.url()}/`, adminApiKey: ghost.adminApiKey });
    const found = await again.findByMarker("story-2");
    expect(found?.id).toBe(created.id);
    expect(found?.updatedAt).toBe(ghost.posts.get(created.id)!.updated_at);
    expect(ghost.requests.at(-1)!.search.get("filter")).toBe(`tag:${markerTagSlug("story-2")}`);

    expect(await again.findByMarker("story-never-written")).toBeNull();
  });

  test("a marker that is not slug-safe is kept apart by a digest, never folded into another", async () => {
    const upper = await connector.create(storyPost("Story_9", { slug: "ninth" }));
    const lower = await connector.create(storyPost("story-9", { slug: "ninth-b" }));

    expect(markerTagSlug("Story_9")).toMatch(/^hash-newsroom-[0-9a-f]{40}$/);
    expect((await connector.findByMarker("Story_9"))?.id).toBe(upper.id);
    expect((await connector.findByMarker("story-9"))?.id).toBe(lower.id);
  });

  test("update sends the updated_at it was given and answers the new one", async () => {
    const created = await connector.create(storyPost("story-3", { slug: "third" }));
    const updated = await connector.update(
      created,
      storyPost("story-3", { slug: "third", title: "Harbour bridge reopens a day early" }),
    );

    expect(updated.id).toBe(created.id);
    expect(updated.updatedAt).not.toBe(created.updatedAt);
    const stored = ghost.posts.get(created.id)!;
    expect(stored.title).toBe("Harbour bridge reopens a day early");
    expect(stored.updated_at).toBe(updated.updatedAt!);
    expect(stored.tags.filter((tag) => tag.name === "#newsroom-story-3")).toHaveLength(1);
    const sent = ghost.requests.findLast((request) => request.method === "PUT")!;
    expect(sent.path).toBe(`/ghost/api/admin/posts/${created.id}/`);
    expect(sent.search.get("source")).toBe("html");

    // Written again from the answer: the stamp carried forward is the one Ghost expects.
    const twice = await connector.update(
      updated,
      storyPost("story-3", { slug: "third", title: "Third" }),
    );
    expect(ghost.posts.get(created.id)!.title).toBe("Third");
    expect(twice.updatedAt).toBe(ghost.posts.get(created.id)!.updated_at);
  });

  test("unpublish to a draft keeps the post, even when an editor changed it meanwhile", async () => {
    const created = await connector.create(storyPost("story-4", { slug: "fourth" }));
    ghost.editInGhost(created.id, { title: "An editor's title" });

    await connector.unpublish(created, "draft");

    const stored = ghost.posts.get(created.id)!;
    expect(stored.status).toBe("draft");
    expect(stored.title).toBe("An editor's title");
    expect((await connector.findByMarker("story-4"))?.id).toBe(created.id);
  });

  test("unpublish to a draft reads again when an edit lands between its read and its save", async () => {
    const created = await connector.create(storyPost("story-10", { slug: "tenth" }));
    let edits = 0;
    const racing = new GhostConnector({
      url: ghost.url(),
      adminApiKey: ghost.adminApiKey,
      fetch: (url, init) => {
        if (init.method === "PUT" && edits++ === 0)
          ghost.editInGhost(created.id, { title: "Raced" });
        return fetch(url, init);
      },
    });

    await racing.unpublish(created, "draft");

    expect(ghost.posts.get(created.id)!.status).toBe("draft");
    expect(ghost.posts.get(created.id)!.title).toBe("Raced");
    const puts = ghost.requests.filter(
      (request) => request.method === "PUT" && request.path.includes(created.id),
    );
    expect(puts).toHaveLength(2);
  });

  test("unpublish to the trash deletes the post (Ghost has no trash); a second time is a no-op", async () => {
    const created = await connector.create(storyPost("story-5", { slug: "fifth" }));

    await connector.unpublish(created, "trash");

    expect(ghost.posts.has(created.id)).toBe(false);
    expect(ghost.requests.at(-1)!.method).toBe("DELETE");
    expect(await connector.findByMarker("story-5")).toBeNull();
    await connector.unpublish(created, "trash");
    await connector.unpublish(created, "draft");
  });

  test("an image goes into the media library and the body points at its copy there", async () => {
    const bytes = Uint8Array.from(
      Buffer.from(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
          "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
        "hex",
      ),
    );
    const image: RemoteImage = await connector.uploadImage({
      assetId: ASSET_ID,
      bytes,
      filename: "bridge.png",
      contentType: "image/png",
      alt: "The bridge at dawn",
    });

    expect(image.url).toStartWith(`${ghost.url()}/content/images/`);
    expect(image.url).toEndWith(".png");
    const served = await fetch(image.url);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes);
    const sent = ghost.requests.findLast((request) => request.method === "POST")!;
    expect(sent.path).toBe("/ghost/api/admin/images/upload/");
    expect(sent.headers.get("content-type")).toStartWith("multipart/form-data");

    const created = await connector.create(
      storyPost("story-6", {
        slug: "sixth",
        body: [
          {
            type: "image",
            asset_id: ASSET_ID,
            alt: "The bridge at dawn",
            caption: "Photo: *City archive*",
          },
          { type: "image", asset_id: "5e0c3b3a-4a55-4a7f-8a86-1d7b0e8f3c21", alt: "Not uploaded" },
        ],
        images: new Map([[ASSET_ID, image]]),
      }),
    );
    const html = ghost.posts.get(created.id)!.html!;
    expect(html).toContain(
      `<figure class="kg-card kg-image-card"><img src="${image.url}" class="kg-image" alt="The bridge at dawn"><figcaption>Photo: <em>City archive</em></figcaption></figure>`,
    );
    expect(html).not.toContain("Not uploaded");
  });

  test("an update without a recorded updated_at reads the current one first", async () => {
    const created = await connector.create(storyPost("story-7", { slug: "seventh" }));
    const updated = await connector.update(
      { ...created, updatedAt: null },
      storyPost("story-7", { slug: "seventh", title: "Seventh, revised" }),
    );

    expect(ghost.posts.get(created.id)!.title).toBe("Seventh, revised");
    expect(updated.updatedAt).toBe(ghost.posts.get(created.id)!.updated_at);
    const [read, put] = ghost.requests.slice(-2);
    expect([read!.method, put!.method]).toEqual(["GET", "PUT"]);
  });

  test("values longer than Ghost's columns are cut to fit rather than refused", async () => {
    const created = await connector.create(
      storyPost("story-8", { slug: "eighth", title: "T".repeat(400), summary: "S".repeat(500) }),
    );

    const stored = ghost.posts.get(created.id)!;
    expect(stored.title).toHaveLength(255);
    expect(stored.title).toEndWith("…");
    expect(stored.custom_excerpt).toHaveLength(300);
  });

  test("every request goes through the fetch the writer hands in (its target rules apply)", async () => {
    const seen: string[] = [];
    const guarded = new GhostConnector({
      url: ghost.url(),
      adminApiKey: ghost.adminApiKey,
      fetch: (url, init) => {
        seen.push(`${init.method} ${new URL(url).pathname}`);
        return fetch(url, init);
      },
    });

    expect(await guarded.check()).toEqual({ ok: true });
    await guarded.findByMarker("story-1");
    expect(seen).toEqual([
      "GET /ghost/api/admin/site/",
      "GET /ghost/api/admin/posts/",
      "GET /ghost/api/admin/users/me/",
      "GET /ghost/api/admin/posts/",
    ]);
  });

  test("check passes with an integration's key, and with an Editor's staff token", async () => {
    expect(await connector.check()).toEqual({ ok: true });
    ghost.setStaffRole("Editor");
    try {
      expect(await connector.check()).toEqual({ ok: true });
    } finally {
      ghost.setStaffRole(null);
    }
  });
});
