import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { previewLinks } from "@newsroom/shared/db/schema";
import { eventually } from "@newsroom/shared/testing/eventually";
import { eq } from "drizzle-orm";
import { orgWithMembers, type WebHarness, webHarness } from "../support/workspace-web-embedded.ts";

/**
 * A flow across services: the workspace makes an embargoed story's preview link, public reads
 * serve it on the organization's newsroom through the gateway (never kept by its answer cache,
 * never in a list), and the workspace records its openings from public reads' event.
 */
const DAY_MS = 86_400_000;
const RIVAL_HOST = "news.rival-preview.example";

describe("embargoed preview links", () => {
  let h: WebHarness;
  let feedKey: string;

  /** A story of `org` taken through `actions`, with the topic `embargo`. */
  async function story(org: string, slug: string, actions: string[]): Promise<string> {
    const created = await h.admin("POST", `/orgs/${org}/stories`, {
      type: "press_release",
      slug,
      title: `Title of ${slug}`,
      summary: `Summary of ${slug}`,
      body: [{ type: "paragraph", text: `Body of ${slug}.` }],
      topics: ["embargo"],
    });
    const id = created.body.id as string;
    for (const action of actions) {
      const moved = await h.admin("POST", `/stories/${id}/transitions`, { action });
      if (moved.status !== 200) throw new Error(`${action}: ${JSON.stringify(moved.body)}`);
    }
    return id;
  }

  async function link(storyId: string, days = 7) {
    const created = await h.admin("POST", `/stories/${storyId}/preview_links`, {
      label: "The Daily",
      expires_at: new Date(Date.now() + days * DAY_MS).toISOString(),
    });
    expect(created.status).toBe(201);
    const { id, url } = created.body as { id: string; url: string };
    return { id, url, token: url.split("/").pop()! };
  }

  /** Through the gateway, on `host` when given (a client's hostname). */
  const get = (path: string, host?: string) =>
    fetch(`${h.url}${path}`, { headers: host ? { host } : {}, redirect: "manual" });

  beforeAll(async () => {
    h = await webHarness();
    // HOUSE_ORG: its newsroom is /newsroom on the service's host.
    await orgWithMembers(h, "armage", 0);
    await orgWithMembers(h, "rival-preview", 0);
    await h.admin("POST", "/orgs/rival-preview/sites", {
      site: "rival-preview",
      name: "Rival",
      publisher: "Rival",
      enabled: true,
      live: true,
    });
    await h.admin("POST", "/sites/rival-preview/hostnames", { hostname: RIVAL_HOST });
    await h.admin("POST", `/sites/rival-preview/hostnames/${RIVAL_HOST}/activate`);
    // A published neighbour, so the topic's page and the lists exist.
    await story("armage", "neighbour", ["submit", "approve", "publish"]);
    const key = await h.admin("POST", "/orgs/armage/keys", {
      environment: "test",
      scopes: ["stories:read", "feed:read"],
      lifetime_days: 30,
    });
    feedKey = key.body.secret as string;
  }, 120_000);
  afterAll(() => h?.close());

  test("before the time: the story as readers will see it, noindex, private, never kept; no list names it", async () => {
    const id = await story("armage", "embargoed-launch", ["submit", "approve"]);
    const { id: linkId, url, token } = await link(id);
    expect(url.startsWith(`${h.url}/newsroom/preview/`)).toBe(true);
    for (let i = 0; i < 2; i++) {
      const answer = await fetch(url);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toStartWith("text/html");
      expect(answer.headers.get("x-robots-tag")).toContain("noindex");
      expect(answer.headers.get("cache-control")).toBe("private, no-store");
      // The gateway's answer cache did not keep it.
      expect(answer.headers.get("age")).toBeNull();
      const page = await answer.text();
      expect(page).toContain("Title of embargoed-launch");
      expect(page).toContain("Body of embargoed-launch.");
      expect(page).toContain("Embargoed until publication");
      expect(page).toContain('<meta name="robots" content="noindex">');
    }

    const lists = [
      "/newsroom",
      "/newsroom/topics/embargo",
      "/newsroom/feed.xml",
      "/newsroom/feed.json",
      "/sitemap.xml",
      "/robots.txt",
      "/v1/public/newsroom",
      "/v1/public/topics/embargo",
      "/v1/public/search/newsroom",
      "/v1/public/sitemap/newsroom",
      "/v1/public/newsroom/embargoed-launch",
      "/newsroom/embargoed-launch",
    ];
    for (const path of lists) {
      const answer = await get(path);
      // Every list answers (so its silence means something); the item itself is not public.
      expect(answer.status, path).toBe(path.endsWith("/embargoed-launch") ? 404 : 200);
      const text = await answer.text();
      expect(text, path).not.toContain("embargoed-launch");
      expect(text, path).not.toContain(token);
      expect(text, path).not.toContain("/preview/");
    }
    expect(await (await get("/newsroom")).text()).toContain("neighbour");
    for (const path of ["/v1/feed.json", "/v1/feed.xml"]) {
      const answer = await fetch(`${h.url}${path}`, {
        headers: { authorization: `Bearer ${feedKey}` },
      });
      expect(answer.status, path).toBe(200);
      const text = await answer.text();
      expect(text, path).toContain("neighbour");
      expect(text, path).not.toContain("embargoed-launch");
      expect(text, path).not.toContain(token);
    }

    // The workspace recorded both openings, from public reads' events.
    await eventually(
      async () => {
        const list = await h.admin("GET", `/stories/${id}/preview_links`);
        const row = list.body.data.find((l: { id: string }) => l.id === linkId);
        return row?.opened_count === 2 && row.first_opened_at && row.last_opened_at;
      },
      { message: "two openings recorded", timeoutMs: 10_000 },
    );
  }, 60_000);

  test("revoked: 404 at once; expired: 404; a random or malformed token: 404", async () => {
    const id = await story("armage", "revoked-launch", ["submit", "approve"]);
    const revoked = await link(id);
    expect((await fetch(revoked.url)).status).toBe(200);
    expect((await h.admin("POST", `/preview_links/${revoked.id}/revoke`)).status).toBe(200);
    const gone = await fetch(revoked.url);
    expect(gone.status).toBe(404);
    expect(gone.headers.get("cache-control")).toBe("private, no-store");
    expect(await gone.text()).not.toContain("revoked-launch");

    const expired = await link(id);
    await h.runtime.database.db
      .update(previewLinks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(previewLinks.id, expired.id));
    expect((await fetch(expired.url)).status).toBe(404);

    const random = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    for (const token of [random, "short", `${random}x`, "%00", "..%2F..%2Fapp"]) {
      expect((await get(`/newsroom/preview/${token}`)).status, token).toBe(404);
    }
  }, 60_000);

  test("another organization's token on this host is 404, on paths and hostnames alike", async () => {
    const ours = await link(await story("armage", "house-launch", ["submit", "approve"]));
    const theirs = await link(await story("rival-preview", "rival-launch", ["submit", "approve"]));
    expect(theirs.url).toBe(`https://${RIVAL_HOST}/preview/${theirs.token}`);
    // Each on its own newsroom: the hostname, and the hosted path too.
    expect((await get(`/preview/${theirs.token}`, RIVAL_HOST)).status).toBe(200);
    expect((await get(`/newsrooms/rival-preview/preview/${theirs.token}`)).status).toBe(200);
    expect((await get(`/newsroom/preview/${ours.token}`)).status).toBe(200);
    // The hosted site's lists, by path and on its hostname, do not name it either.
    const siteLists: [string, string | undefined][] = [
      ["/newsrooms/rival-preview", undefined],
      ["/newsrooms/rival-preview/feed.xml", undefined],
      ["/newsrooms/rival-preview/feed.json", undefined],
      ["/v1/public/sites/rival-preview/newsroom", undefined],
      ["/v1/public/sites/rival-preview/sitemap", undefined],
      ["/", RIVAL_HOST],
      ["/sitemap.xml", RIVAL_HOST],
      ["/feed.xml", RIVAL_HOST],
      ["/robots.txt", RIVAL_HOST],
    ];
    for (const [path, host] of siteLists) {
      const answer = await get(path, host);
      expect(answer.status, `${host ?? ""}${path}`).toBe(200);
      const text = await answer.text();
      expect(text, `${host ?? ""}${path}`).not.toContain("rival-launch");
      expect(text, `${host ?? ""}${path}`).not.toContain(theirs.token);
    }
    // Never on the other's.
    expect((await get(`/newsroom/preview/${theirs.token}`)).status).toBe(404);
    expect((await get(`/preview/${ours.token}`, RIVAL_HOST)).status).toBe(404);
    expect((await get(`/newsrooms/rival-preview/preview/${ours.token}`)).status).toBe(404);
  }, 60_000);

  test("an organization without a site of its own previews on the house newsroom under its name", async () => {
    await orgWithMembers(h, "siteless-preview", 0);
    const id = await story("siteless-preview", "siteless-launch", ["submit", "approve"]);
    const theirs = await link(id);
    expect(new URL(theirs.url).pathname).toBe(`/newsroom/preview/${theirs.token}`);
    const answer = await get(new URL(theirs.url).pathname);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-robots-tag")).toContain("noindex");
    expect(answer.headers.get("cache-control")).toBe("private, no-store");
    expect(await answer.text()).toContain("Title of siteless-launch");
    // A site's token stays on its site: the house newsroom does not adopt it.
    const rival = await link(await story("rival-preview", "rival-adopted", ["submit", "approve"]));
    expect((await get(`/newsroom/preview/${rival.token}`)).status).toBe(404);
    // Nor does a hosted site adopt the siteless organization's.
    expect((await get(`/newsrooms/rival-preview/preview/${theirs.token}`)).status).toBe(404);
    expect((await get(`/preview/${theirs.token}`, RIVAL_HOST)).status).toBe(404);
  }, 60_000);

  test("published: the link leads to the public page; unpublished, archived or back to draft: 404", async () => {
    const id = await story("armage", "released-launch", ["submit", "approve"]);
    const { url } = await link(id);
    await h.admin("POST", `/stories/${id}/transitions`, { action: "publish" });
    const moved = await fetch(url, { redirect: "manual" });
    expect(moved.status).toBe(303);
    expect(moved.headers.get("location")).toBe(`${h.url}/newsroom/released-launch`);
    expect(moved.headers.get("cache-control")).toBe("private, no-store");
    await h.admin("POST", `/stories/${id}/transitions`, { action: "unpublish" });
    expect((await fetch(url, { redirect: "manual" })).status).toBe(404);

    const archived = await story("armage", "archived-launch", ["submit", "approve"]);
    const archivedLink = await link(archived);
    await h.admin("POST", `/stories/${archived}/transitions`, { action: "archive" });
    expect((await fetch(archivedLink.url)).status).toBe(404);

    const redrafted = await story("armage", "redrafted-launch", ["submit", "approve"]);
    const redraftedLink = await link(redrafted);
    const version = await h.admin("POST", `/stories/${redrafted}/versions`, {
      title: "A new title",
      body: [{ type: "paragraph", text: "Changed." }],
    });
    expect(version.status).toBe(201);
    expect((await fetch(redraftedLink.url)).status).toBe(404);
  }, 60_000);
});
