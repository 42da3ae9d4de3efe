import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliAgainst, runCli } from "./support/cli.ts";
import { ADMIN_TOKEN, type Harness, workspaceHarness } from "./support/harness.ts";

/** `npm run admin` as a person uses it: a subprocess against a started workspace. */
let h: Harness;
let cli: ReturnType<typeof cliAgainst>;
beforeAll(async () => {
  h = await workspaceHarness();
  cli = cliAgainst(h);
});
afterAll(async () => {
  cli.stop();
  await h.close();
});

async function storyIn(org: string, slug: string) {
  const created = await cli.admin(
    "story-create",
    org,
    "--type",
    "insight",
    "--slug",
    slug,
    "--title",
    `Story ${slug}`,
  );
  expect(created.code).toBe(0);
  return created.json();
}

describe("list commands", () => {
  test("organizations, stories by status, keys and members", async () => {
    expect(
      (await cli.admin("org-create", "lists", "Lists", "--newsroom-running", "true")).code,
    ).toBe(0);
    await storyIn("lists", "kept-in-draft");
    await storyIn("lists", "submitted-one");
    expect((await cli.admin("story-transition", "lists/submitted-one", "submit")).code).toBe(0);
    const key = await cli.admin(
      "key-create",
      "lists",
      "--environment",
      "test",
      "--scopes",
      "feed:read",
      "--lifetime-days",
      "30",
      "--name",
      "Feed reader",
    );
    expect(key.code).toBe(0);
    await cli.admin("member-add", "lists", "editor@example.com", "--role", "editor");

    const orgs = (await cli.admin("org-list")).json();
    expect(orgs.object).toBe("list");
    expect(orgs.data.map((org: { slug: string }) => org.slug)).toContain("lists");

    const all = (await cli.admin("story-list", "lists")).json();
    expect(all.data.map((s: { slug: string }) => s.slug).sort()).toEqual([
      "kept-in-draft",
      "submitted-one",
    ]);
    const inReview = (await cli.admin("story-list", "lists", "--status", "review_required")).json();
    expect(inReview.data.map((s: { slug: string }) => s.slug)).toEqual(["submitted-one"]);

    const keys = await cli.admin("key-list", "lists");
    expect(keys.json().data).toHaveLength(1);
    expect(keys.json().data[0].id).toBe(key.json().id);
    expect(keys.json().data[0].name).toBe("Feed reader");
    expect(keys.stdout).not.toContain(key.json().secret);

    const members = (await cli.admin("member-list", "lists")).json();
    expect(members.data).toMatchObject([{ email: "editor@example.com", role: "editor" }]);
    const removed = await cli.admin("member-remove", "lists", "editor@example.com");
    expect(removed.code).toBe(0);
    expect((await cli.admin("member-list", "lists")).json().data).toEqual([]);
  });

  test("a story is named <org>/<slug> or by its id", async () => {
    await cli.admin("org-create", "named", "Named", "--newsroom-running", "true");
    const story = await storyIn("named", "by-slug");
    const bySlug = (await cli.admin("story-get", "named/by-slug")).json();
    const byId = (await cli.admin("story-get", story.id)).json();
    expect(bySlug.id).toBe(story.id);
    expect(byId).toEqual(bySlug);
    const versioned = await cli.admin("story-version", "named/by-slug", "--title", "Second");
    expect(versioned.json()).toMatchObject({ id: story.id, version: 2, title: "Second" });
    expect((await cli.admin("story-get", "lists/by-slug")).code).toBe(1);
  });
});

describe("output", () => {
  test("stdout holds the JSON answer only; --format table prints columns", async () => {
    await cli.admin("org-create", "tabled", "Tabled", "--newsroom-running", "true");
    await storyIn("tabled", "one-row");
    const json = await cli.admin("story-list", "tabled");
    expect(() => JSON.parse(json.stdout)).not.toThrow();
    const table = await cli.admin("story-list", "tabled", "--format", "table");
    expect(table.code).toBe(0);
    const [header, row] = table.stdout.trim().split("\n");
    expect(header).toMatch(/^id\s+type\s+slug\s+status\s+title/);
    expect(row).toContain("one-row");
    expect(row).toContain("draft");
  });

  test("an organization whose newsroom is not running says so on create and on each transition", async () => {
    const created = await cli.admin("org-create", "quiet", "Quiet");
    expect(created.code).toBe(0);
    expect(created.json().newsroom_running).toBe(false);
    expect(created.stderr).toContain("newsroom_running false");
    expect(created.stderr).toContain("org-update quiet --newsroom-running true");
    await storyIn("quiet", "unseen");
    const moved = await cli.admin("story-transition", "quiet/unseen", "submit");
    expect(moved.code).toBe(0);
    expect(moved.json().status).toBe("review_required");
    expect(moved.stderr).toContain("newsroom_running false");

    await cli.admin("org-create", "loud", "Loud", "--newsroom-running", "true");
    await storyIn("loud", "seen");
    const running = await cli.admin("story-transition", "loud/seen", "submit");
    expect(running.stderr).toBe("");
  });

  test("--newsletter-origins says it replaced the list; add and remove change it", async () => {
    await cli.admin("org-create", "letters", "Letters", "--newsroom-running", "true");
    const first = await cli.admin(
      "org-update",
      "letters",
      "--newsletter-origins",
      "https://a.example,https://b.example",
    );
    expect(first.json().newsletter_origins).toEqual(["https://a.example", "https://b.example"]);
    const replaced = await cli.admin(
      "org-update",
      "letters",
      "--newsletter-origins",
      "https://c.example",
    );
    expect(replaced.json().newsletter_origins).toEqual(["https://c.example"]);
    expect(replaced.stderr).toContain("replaced the list");
    expect(replaced.stderr).toContain("was: https://a.example, https://b.example");
    const added = await cli.admin(
      "org-update",
      "letters",
      "--add-newsletter-origins",
      "https://d.example",
    );
    expect(added.json().newsletter_origins).toEqual(["https://c.example", "https://d.example"]);
    expect(added.stderr).toBe("");
    const removed = await cli.admin(
      "org-update",
      "letters",
      "--remove-newsletter-origins",
      "https://c.example",
    );
    expect(removed.json().newsletter_origins).toEqual(["https://d.example"]);
  });
});

describe("finding the workspace", () => {
  test("without WORKSPACE_URL, the ports and token a running start recorded in .data/ports.json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-ports-"));
    mkdirSync(join(dir, ".data"));
    writeFileSync(
      join(dir, ".data/ports.json"),
      JSON.stringify({
        pid: process.pid,
        url: "http://localhost:1",
        workspace_url: `http://127.0.0.1:${cli.server.port}`,
        admin_token: ADMIN_TOKEN,
      }),
    );
    const env = { WORKSPACE_URL: undefined, WORKSPACE_PORT: undefined, ADMIN_TOKEN: undefined };
    const listed = await runCli(["org-list"], { cwd: dir, env });
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    expect(listed.json().object).toBe("list");
  });

  test("LOCAL_PORTS_FILE names another file than .data/ports.json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-ports-"));
    writeFileSync(
      join(dir, "elsewhere.json"),
      JSON.stringify({
        pid: process.pid,
        url: "http://localhost:1",
        workspace_url: `http://127.0.0.1:${cli.server.port}`,
        admin_token: ADMIN_TOKEN,
      }),
    );
    const env = {
      WORKSPACE_URL: undefined,
      WORKSPACE_PORT: undefined,
      ADMIN_TOKEN: undefined,
      LOCAL_PORTS_FILE: join(dir, "elsewhere.json"),
    };
    const listed = await runCli(["org-list"], { cwd: dir, env });
    expect(listed.code).toBe(0);
    expect(listed.json().object).toBe("list");
  });

  test("a recorded start whose process is gone is ignored", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-ports-"));
    mkdirSync(join(dir, ".data"));
    const gone = Bun.spawn([process.execPath, "-e", ""]);
    await gone.exited;
    writeFileSync(
      join(dir, ".data/ports.json"),
      JSON.stringify({
        pid: gone.pid,
        url: "",
        workspace_url: `http://127.0.0.1:${cli.server.port}`,
      }),
    );
    const env = { WORKSPACE_URL: undefined, WORKSPACE_PORT: "1", ADMIN_TOKEN };
    const listed = await runCli(["org-list"], { cwd: dir, env });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain("unreachable at http://127.0.0.1:1");
  });
});

describe("preview links from the command line", () => {
  test("create (the address once), list and revoke", async () => {
    expect((await cli.admin("org-create", "cli-previews", "Previews")).code).toBe(0);
    const site = await cli.admin("site-create", "cli-previews", "cli-previews", "P", "P");
    expect(site.code).toBe(0);
    await storyIn("cli-previews", "embargoed");
    for (const action of ["submit", "approve"]) {
      expect((await cli.admin("story-transition", "cli-previews/embargoed", action)).code).toBe(0);
    }
    const expires = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const created = await cli.admin(
      "preview-link-create",
      "cli-previews/embargoed",
      "The Daily",
      "--expires-at",
      expires,
    );
    expect(created.code).toBe(0);
    const link = created.json();
    expect(link.url).toMatch(/\/newsrooms\/cli-previews\/preview\/[A-Za-z0-9_-]{43}$/);
    const listed = await cli.admin("preview-link-list", "cli-previews/embargoed");
    expect(listed.json().data.map((l: { id: string }) => l.id)).toEqual([link.id]);
    expect(listed.stdout).not.toContain(link.url);
    const revoked = await cli.admin("preview-link-revoke", link.id);
    expect(revoked.code).toBe(0);
    expect(revoked.json().revoked_at).not.toBeNull();
    const tooLate = await cli.admin(
      "preview-link-create",
      "cli-previews/embargoed",
      "Later",
      "--expires-at",
      new Date(Date.now() + 40 * 86_400_000).toISOString(),
    );
    expect(tooLate.code).not.toBe(0);
    expect(`${tooLate.stdout}${tooLate.stderr}`).toContain("expires_at");
  });
});
