import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stories, storyVersions } from "@newsroom/shared/db/schema";
import { and, eq } from "drizzle-orm";
import { ADMIN_TOKEN, type Harness, orgWithDraft, workspaceHarness } from "./support/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await workspaceHarness();
});
afterAll(() => h.close());

const story = (slug: string, body: unknown) => ({ type: "insight", slug, title: "T", body });

const BAD_BODIES: [string, unknown, string][] = [
  ["a string", "some text", "body"],
  ["a list of strings", ["some", "text"], "body.0"],
  ["an unknown block type", [{ type: "marquee", text: "Hi" }], "body.0"],
  ["a paragraph without text", [{ type: "paragraph" }], "body.0"],
  ["an object", { type: "paragraph", text: "Hi" }, "body"],
];

describe("a story body is a list of known blocks", () => {
  for (const [name, body, field] of BAD_BODIES) {
    test(`create refuses ${name}: 422 naming ${field}, nothing stored`, async () => {
      const slug = `bad-${BAD_BODIES.findIndex(([n]) => n === name)}`;
      await h.call("POST", "/orgs", { slug, name: slug });
      const refused = await h.call("POST", `/orgs/${slug}/stories`, story("s", body));
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe("validation_failed");
      const fields = refused.body.error.fields.map((f: { field: string }) => f.field);
      expect(fields.some((f: string) => f === field || f.startsWith(`${field}.`))).toBe(true);
      const org = await h.call("GET", `/orgs/${slug}`);
      const rows = await h.database.db
        .select()
        .from(stories)
        .where(eq(stories.organizationId, org.body.id));
      expect(rows).toEqual([]);
    });

    test(`a new version refuses ${name}`, async () => {
      const { storyId } = await orgWithDraft(h, `ver-${BAD_BODIES.findIndex(([n]) => n === name)}`);
      const refused = await h.call("POST", `/stories/${storyId}/versions`, { title: "T", body });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe("validation_failed");
      expect(refused.body.error.fields.length).toBeGreaterThan(0);
      const versions = await h.database.db
        .select()
        .from(storyVersions)
        .where(eq(storyVersions.storyId, storyId));
      expect(versions).toHaveLength(1);
    });
  }

  test("a field a block does not know is dropped, as unknown fields are everywhere", async () => {
    await h.call("POST", "/orgs", { slug: "extra", name: "Extra" });
    const body = [{ type: "paragraph", text: "Hi", onclick: "alert(1)" }];
    const created = await h.call("POST", "/orgs/extra/stories", story("extra", body));
    expect(created.status).toBe(201);
    const [version] = await h.database.db
      .select()
      .from(storyVersions)
      .where(eq(storyVersions.storyId, created.body.id));
    expect(version?.body).toEqual([{ type: "paragraph", text: "Hi" }]);
  });

  test("every known block is taken as given", async () => {
    await h.call("POST", "/orgs", { slug: "good", name: "Good" });
    const body = [
      { type: "heading", level: 2, text: "Heading" },
      { type: "paragraph", text: "Paragraph" },
      { type: "quote", text: "Quote", attribution: "Someone" },
      { type: "list", items: ["one", "two"], ordered: true },
      { type: "image", asset_id: crypto.randomUUID(), caption: "Caption", alt: "Alt" },
      { type: "image", url: "https://cdn.example.com/a.jpg" },
      { type: "embed", url: "https://video.example.com/v/1" },
    ];
    const created = await h.call("POST", "/orgs/good/stories", story("good", body));
    expect(created.status).toBe(201);
    const [version] = await h.database.db
      .select()
      .from(storyVersions)
      .where(eq(storyVersions.storyId, created.body.id));
    expect(version?.body).toEqual(body);
  });
});

describe("the CLI gives a body as plain text or a file of blocks", () => {
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: h.fetch });
  });
  afterAll(() => server.stop(true));

  async function admin(...args: string[]) {
    const child = Bun.spawn([process.execPath, "services/workspace/src/cli.ts", ...args], {
      cwd: `${import.meta.dir}/../../..`,
      env: {
        ...process.env,
        WORKSPACE_URL: `http://127.0.0.1:${server.port}`,
        ADMIN_TOKEN,
        LOG_LEVEL: "error",
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, out] = await Promise.all([child.exited, new Response(child.stdout).text()]);
    return { code, body: JSON.parse(out) };
  }

  // The public item renders them: test/flows/story-body.test.ts.
  test('--body "a\\n\\nb" stores two paragraphs', async () => {
    await h.call("POST", "/orgs", { slug: "cli-house", name: "House", newsroom_running: true });
    const created = await admin(
      "story-create",
      "cli-house",
      "--type",
      "insight",
      "--slug",
      "from-the-shell",
      "--title",
      "From the shell",
      "--body",
      "a\n\nb",
    );
    expect(created.code).toBe(0);
    const paragraphs = [
      { type: "paragraph", text: "a" },
      { type: "paragraph", text: "b" },
    ];
    const [version] = await h.database.db
      .select()
      .from(storyVersions)
      .where(and(eq(storyVersions.storyId, created.body.id), eq(storyVersions.version, 1)));
    expect(version?.body).toEqual(paragraphs);
  });

  test("--body-file takes a JSON list of blocks; a bad file's blocks are refused", async () => {
    await h.call("POST", "/orgs", { slug: "cli-file", name: "File" });
    const blocks = [
      { type: "heading", level: 2, text: "Title" },
      { type: "list", items: ["x", "y"] },
    ];
    const good = join(tmpdir(), `blocks-${crypto.randomUUID()}.json`);
    const bad = join(tmpdir(), `blocks-${crypto.randomUUID()}.json`);
    await Bun.write(good, JSON.stringify(blocks));
    await Bun.write(bad, JSON.stringify("just a string"));
    try {
      const base = ["story-create", "cli-file", "--type", "insight", "--title", "T"];
      const created = await admin(...base, "--slug", "from-file", "--body-file", good);
      expect(created.code).toBe(0);
      const [version] = await h.database.db
        .select()
        .from(storyVersions)
        .where(eq(storyVersions.storyId, created.body.id));
      expect(version?.body).toEqual(blocks);
      const refused = await admin(...base, "--slug", "bad-file", "--body-file", bad);
      expect(refused.code).toBe(1);
      expect(refused.body.error.code).toBe("validation_failed");
    } finally {
      await Bun.file(good).unlink();
      await Bun.file(bad).unlink();
    }
  });
});
