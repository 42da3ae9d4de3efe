import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiKeys, hostnames, stories } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { revokeApiKey } from "../src/keys/service.ts";
import { activateHostname, addHostname } from "../src/sites/service.ts";
import { addStoryVersion, transitionStory } from "../src/stories/service.ts";
import { type Harness, orgWithDraft, workspaceHarness } from "./support/harness.ts";

/**
 * The service functions that write tenant records take the organization first and find the
 * record within it: another organization's id is "not found", and nothing changes.
 */
describe("writes take the organization first", () => {
  let h: Harness;
  let mine: { orgId: string; storyId: string };
  let theirs: { orgId: string; storyId: string };
  let keyId: string;
  beforeAll(async () => {
    h = await workspaceHarness();
    mine = await orgWithDraft(h, "scope-mine");
    theirs = await orgWithDraft(h, "scope-theirs");
    const key = await h.call("POST", "/orgs/scope-theirs/keys", {
      environment: "test",
      scopes: ["stories:read"],
      lifetime_days: 30,
    });
    keyId = key.body.id as string;
    await h.call("POST", "/orgs/scope-theirs/sites", {
      site: "scope-theirs-site",
      name: "Theirs",
      publisher: "Them",
    });
    await h.call("POST", "/sites/scope-theirs-site/hostnames", { hostname: "news.theirs.example" });
  }, 60_000);
  afterAll(() => h?.close());

  const notFound = async (attempt: Promise<unknown>) => {
    const failure = (await attempt.catch((error: unknown) => error)) as { code?: string };
    expect(failure.code).toBe("not_found");
  };
  const db = () => h.database.db;

  test("a story of another organization: no transition, no new version", async () => {
    await notFound(transitionStory(db(), mine.orgId, theirs.storyId, { action: "submit" }));
    await notFound(addStoryVersion(db(), mine.orgId, theirs.storyId, { title: "Taken over" }));
    const [row] = await db().select().from(stories).where(eq(stories.id, theirs.storyId));
    expect(row).toMatchObject({ status: "draft", currentVersion: 1 });
  });

  test("a key of another organization is not revoked", async () => {
    await notFound(revokeApiKey(db(), mine.orgId, keyId));
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(row?.revokedAt).toBeNull();
  });

  test("a site of another organization takes no hostname, and its hostnames stay pending", async () => {
    await notFound(addHostname(db(), mine.orgId, "scope-theirs-site", "news.mine.example"));
    await notFound(activateHostname(db(), mine.orgId, "scope-theirs-site", "news.theirs.example"));
    const rows = await db().select().from(hostnames);
    expect(rows.map((row) => [row.hostname, row.status])).toEqual([
      ["news.theirs.example", "pending"],
    ]);
  });

  test("within the organization, the same calls work", async () => {
    const story = await transitionStory(db(), theirs.orgId, theirs.storyId, { action: "submit" });
    expect(story.status).toBe("review_required");
    const key = await revokeApiKey(db(), theirs.orgId, keyId);
    expect(key.revokedAt).not.toBeNull();
  });
});
