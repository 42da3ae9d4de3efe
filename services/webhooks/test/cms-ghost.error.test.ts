import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closedPort } from "@newsroom/shared/testing/ports";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { type CmsCheck, CmsConflict, type CmsPost, CmsRefused } from "../src/cms/connector.ts";
import { GhostConnector } from "../src/cms/ghost/connector.ts";
import {
  type GhostAdminServer,
  hexOf,
  startGhostAdminServer,
} from "./support/ghost-admin-server.ts";

// Ghost 6 needs Node 22: these run against the stand-in Admin API server (see its header).
let ghost: GhostAdminServer;
let connector: GhostConnector;
let other: Receiver;

beforeAll(() => {
  ghost = startGhostAdminServer();
  connector = new GhostConnector({ url: ghost.url(), adminApiKey: ghost.adminApiKey });
  other = startReceiver();
});

afterAll(async () => {
  await ghost.stop();
  other.stop();
});

function storyPost(marker: string, change: Partial<CmsPost> = {}): CmsPost {
  return {
    marker,
    title: "Council approves the budget",
    slug: `budget-${marker}`,
    summary: null,
    body: [{ type: "paragraph", text: "The vote was close." }],
    canonicalUrl: "https://news.example.com/stories/budget",
    publishedAt: "2026-11-26T08:00:00.000Z",
    topics: [],
    images: new Map(),
    ...change,
  };
}

/** A problem's message must help the person who set the connection up and never show the key. */
function expectProblem(check: CmsCheck, problem: string) {
  expect(check.ok).toBe(false);
  if (check.ok) return;
  expect(check.problem).toBe(problem as typeof check.problem);
  expect(check.message.length).toBeGreaterThan(20);
  expect(check.message).not.toContain(ghost.key.secret);
  expect(check.message).not.toContain(ghost.key.id);
}

describe("conflicts", () => {
  test("an update with a stale updated_at throws CmsConflict and leaves the editor's change", async () => {
    const created = await connector.create(storyPost("conflict-1"));
    ghost.editInGhost(created.id, { title: "Changed by an editor in Ghost" });

    const error = await connector
      .update(created, storyPost("conflict-1", { title: "From the newsroom" }))
      .catch((e) => e);

    expect(error).toBeInstanceOf(CmsConflict);
    expect(ghost.posts.get(created.id)!.title).toBe("Changed by an editor in Ghost");
    expect(ghost.requests.at(-1)!.method).toBe("PUT");
  });

  test("an update of a post deleted in Ghost is refused, not retried", async () => {
    const created = await connector.create(storyPost("gone-1"));
    ghost.posts.delete(created.id);

    const error = await connector.update(created, storyPost("gone-1")).catch((e) => e);

    expect(error).toBeInstanceOf(CmsRefused);
    expect(String(error.message)).toContain("no longer in Ghost");
  });
});

describe("check", () => {
  test("a key with the wrong secret: refused_credentials, and writes are refused too", async () => {
    const wrong = new GhostConnector({
      url: ghost.url(),
      adminApiKey: `${ghost.key.id}:${hexOf(32)}`,
    });

    expectProblem(await wrong.check(), "refused_credentials");
    const error = await wrong.create(storyPost("wrong-secret")).catch((e) => e);
    expect(error).toBeInstanceOf(CmsRefused);
    expect(String(error.message)).toContain("invalid signature");
    expect([...ghost.posts.values()].some((post) => post.slug === "budget-wrong-secret")).toBe(
      false,
    );
  });

  test("a key Ghost does not know, and a key not in Ghost's form: refused_credentials", async () => {
    const unknown = new GhostConnector({
      url: ghost.url(),
      adminApiKey: `${hexOf(12)}:${ghost.key.secret}`,
    });
    expectProblem(await unknown.check(), "refused_credentials");

    const before = ghost.requests.length;
    const malformed = new GhostConnector({ url: ghost.url(), adminApiKey: "not-a-ghost-key" });
    expectProblem(await malformed.check(), "refused_credentials");
    expect(ghost.requests.length).toBe(before);
  });

  test("a port where nothing listens: unreachable", async () => {
    const port = await closedPort();
    const away = new GhostConnector({
      url: `http://127.0.0.1:${port}`,
      adminApiKey: ghost.adminApiKey,
    });

    expectProblem(await away.check(), "unreachable");
    expect(await away.findByMarker("x").catch((e) => e)).not.toBeInstanceOf(CmsRefused);
  });

  test("a site that does not answer in time: unreachable", async () => {
    other.on(
      "/ghost/api/admin/site/",
      () => new Promise((resolve) => setTimeout(() => resolve(new Response("late")), 3_000)),
    );
    const slow = new GhostConnector({
      url: other.url(""),
      adminApiKey: ghost.adminApiKey,
      timeoutMs: 300,
    });

    const check = await slow.check();
    expectProblem(check, "unreachable");
    expect(check.ok || check.message).toContain("did not answer");
  });

  test("an address that is not a Ghost: unexpected_answer", async () => {
    other.on(
      "/ghost/api/admin/site/",
      () =>
        new Response("<html>Welcome to nginx</html>", { headers: { "content-type": "text/html" } }),
    );
    const notGhost = new GhostConnector({ url: other.url(""), adminApiKey: ghost.adminApiKey });

    expectProblem(await notGhost.check(), "unexpected_answer");
  });

  test("a staff token whose role may not publish (Contributor, Author): missing_capability", async () => {
    try {
      ghost.setStaffRole("Contributor");
      const check = await connector.check();
      expectProblem(check, "missing_capability");
      expect(check.ok || check.message).toContain("Contributor");
      const error = await connector.create(storyPost("contributor")).catch((e) => e);
      expect(error).toBeInstanceOf(CmsRefused);

      ghost.setStaffRole("Author");
      expectProblem(await connector.check(), "missing_capability");
    } finally {
      ghost.setStaffRole(null);
    }
  });
});

describe("answers a retry may change, and ones it will not", () => {
  test("Ghost busy or failing (503) is a plain error for the retry schedule", async () => {
    other.on("/ghost/api/admin/posts/", () =>
      Response.json(
        { errors: [{ message: "Ghost is restarting", type: "InternalServerError" }] },
        { status: 503 },
      ),
    );
    const busy = new GhostConnector({ url: other.url(""), adminApiKey: ghost.adminApiKey });

    const error = await busy.create(storyPost("busy")).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(CmsRefused);
    expect(String(error.message)).toContain("503");
  });

  test("a redirect is not followed: the connection names the wrong address", async () => {
    other.on(
      "/ghost/api/admin/posts/",
      () =>
        new Response(null, {
          status: 301,
          headers: { location: "https://admin.example.com/ghost/api/admin/posts/" },
        }),
    );
    const moved = new GhostConnector({ url: other.url(""), adminApiKey: ghost.adminApiKey });
    const before = other.at("/ghost/api/admin/posts/").length;

    const error = await moved.findByMarker("moved").catch((e) => e);
    expect(error).toBeInstanceOf(CmsRefused);
    expect(String(error.message)).toContain("https://admin.example.com");
    expect(other.at("/ghost/api/admin/posts/").length).toBe(before + 1);

    other.on(
      "/ghost/api/admin/site/",
      () => new Response(null, { status: 302, headers: { location: "https://www.example.com/" } }),
    );
    const check = await moved.check();
    expectProblem(check, "unexpected_answer");
    expect(check.ok || check.message).toContain("redirect");
  });

  test("a file Ghost does not take as an image is refused (415), not retried", async () => {
    const error = await connector
      .uploadImage({
        assetId: "2f0e4f3b-98a4-4b4e-b2a7-1c3e5d7f9a10",
        bytes: new TextEncoder().encode("%PDF-1.7"),
        filename: "scan.pdf",
        contentType: "application/pdf",
        alt: null,
      })
      .catch((e) => e);

    expect(error).toBeInstanceOf(CmsRefused);
    expect(String(error.message)).toContain("415");
    expect(ghost.images.size).toBe(0);
  });
});
