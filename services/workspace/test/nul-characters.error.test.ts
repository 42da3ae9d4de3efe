import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  approvalDecisions,
  hostnames,
  organizations,
  sites,
  stories,
  storyTopics,
  storyVersions,
  topics,
  webhookEndpoints,
} from "@newsroom/shared/db/schema";
import { requireService } from "@newsroom/shared/testing/database";
import { count } from "drizzle-orm";
import { type Harness, workspaceHarness } from "./support/harness.ts";

const NUL = "a\u0000b";
const STORED = {
  organizations,
  sites,
  hostnames,
  stories,
  storyVersions,
  topics,
  storyTopics,
  approvalDecisions,
  webhookEndpoints,
};

/** Row counts of every table the workspace writes text to. */
async function counts(h: Harness) {
  const out: Record<string, number> = {};
  for (const [name, table] of Object.entries(STORED)) {
    const [row] = await h.database.db.select({ n: count() }).from(table);
    out[name] = row?.n ?? 0;
  }
  return out;
}

const STORY = {
  type: "insight",
  slug: "nul-story",
  title: "Title",
  summary: "Summary",
  body: [
    { type: "paragraph", text: "Text" },
    { type: "list", items: ["one", "two"] },
  ],
  topics: ["policy"],
};

/** Each stored field with a NUL character, and the field the 422 must name. */
function cases(storyId: () => string): [string, string, () => string, unknown][] {
  return [
    ["organization name", "name", () => "/orgs", { slug: "nul-org", name: NUL }],
    ["organization slug", "slug", () => "/orgs", { slug: NUL, name: "N" }],
    ["organization rename", "name", () => "/orgs/base", { name: NUL }],
    [
      "newsletter origin",
      "newsletter_origins.1",
      () => "/orgs/base",
      { newsletter_origins: ["https://a.example", `https://b.example${NUL}`] },
    ],
    ["site name", "name", () => "/orgs/base/sites", { site: "s1", name: NUL, publisher: "P" }],
    [
      "site publisher",
      "publisher",
      () => "/orgs/base/sites",
      { site: "s2", name: "N", publisher: NUL },
    ],
    ["hostname", "hostname", () => "/sites/base-site/hostnames", { hostname: `x${NUL}.example` }],
    ["story title", "title", () => "/orgs/base/stories", { ...STORY, title: NUL }],
    ["story summary", "summary", () => "/orgs/base/stories", { ...STORY, summary: NUL }],
    [
      "story body text",
      "body.0.text",
      () => "/orgs/base/stories",
      { ...STORY, body: [{ type: "paragraph", text: NUL }] },
    ],
    ["story topic", "topics.0", () => "/orgs/base/stories", { ...STORY, topics: [NUL] }],
    [
      "story external URL",
      "external_url",
      () => "/orgs/base/stories",
      { ...STORY, external_url: `https://x.example/${NUL}` },
    ],
    [
      "version title",
      "title",
      () => `/stories/${storyId()}/versions`,
      { title: NUL, body: STORY.body },
    ],
    [
      "version list item",
      "body.1.items.1",
      () => `/stories/${storyId()}/versions`,
      { title: "T", body: [STORY.body[0], { type: "list", items: ["ok", NUL] }] },
    ],
    [
      "transition note",
      "note",
      () => `/stories/${storyId()}/transitions`,
      { action: "archive", note: NUL },
    ],
    [
      "webhook endpoint URL",
      "url",
      () => "/orgs/base/webhook_endpoints",
      { url: `https://hooks.example.com/${NUL}`, events: ["story.published"] },
    ],
  ];
}

const backends = [["PGlite", "pglite"]] as [string, "pglite" | "postgres"][];
if (requireService("DATABASE_URL")) backends.push(["PostgreSQL", "postgres"]);

for (const [name, backend] of backends) {
  describe(`U+0000 in stored text is refused with 422 (${name})`, () => {
    let h: Harness;
    let storyId = "";
    beforeAll(async () => {
      h = await workspaceHarness({ backend });
      await h.call("POST", "/orgs", { slug: "base", name: "Base" });
      await h.call("POST", "/orgs/base/sites", { site: "base-site", name: "S", publisher: "P" });
      storyId = (await h.call("POST", "/orgs/base/stories", STORY)).body.id;
    });
    afterAll(() => h.close());

    for (const [label, field, path, body] of cases(() => storyId)) {
      test(`${label}: names ${field}, stores nothing`, async () => {
        const before = await counts(h);
        const method = path() === "/orgs/base" ? "PATCH" : "POST";
        const refused = await h.call(method, path(), body);
        expect(refused.status).toBe(422);
        expect(refused.body.error.code).toBe("validation_failed");
        expect(refused.body.error.fields).toEqual([
          expect.objectContaining({ field, reason: "nul_character" }),
        ]);
        expect(await counts(h)).toEqual(before);
      });
    }

    test("nothing of the base organization changed", async () => {
      const org = await h.call("GET", "/orgs/base");
      expect(org.body).toMatchObject({ name: "Base", newsletter_origins: [] });
      const story = await h.call("POST", `/stories/${storyId}/versions`, { title: "Fine" });
      expect(story.body).toMatchObject({ version: 2, title: "Fine", status: "draft" });
    });

    test("an identifier in the path holding U+0000 names nothing: 404", async () => {
      for (const path of ["/orgs/a%00b", "/sites/a%00b/hostnames", "/stories/a%00b/versions"]) {
        const method = path === "/orgs/a%00b" ? "GET" : "POST";
        const answer = await h.call(method, path, method === "GET" ? undefined : { title: "T" });
        expect(answer.status).toBe(404);
      }
    });
  });
}
