import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { STORY_STATUSES, type StoryStatus, stories } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { ACTIONS, checkTransition, TRANSITIONS } from "../src/stories/state-machine.ts";
import { type Harness, orgWithDraft, transition, workspaceHarness } from "./support/harness.ts";

describe("state machine table", () => {
  for (const action of ACTIONS) {
    for (const status of STORY_STATUSES) {
      const allowed = TRANSITIONS[action].from.includes(status);
      test(`${action} from ${status}: ${allowed ? "allowed" : "refused"}`, () => {
        const result = checkTransition({ status, currentVersion: 1, approvedVersion: 1 }, action, {
          note: "a note",
          actorRole: "owner",
        });
        expect(result.ok).toBe(allowed);
      });
    }
  }

  test("publishing needs the current version approved", () => {
    const stale = { status: "approved" as StoryStatus, currentVersion: 2, approvedVersion: 1 };
    expect(checkTransition(stale, "publish", { actorRole: "owner" }).ok).toBe(false);
    expect(checkTransition(stale, "schedule", { actorRole: "owner" }).ok).toBe(false);
  });

  test("approvals are for people with an approver role", () => {
    const story = {
      status: "review_required" as StoryStatus,
      currentVersion: 1,
      approvedVersion: null,
    };
    expect(checkTransition(story, "approve", { actorRole: "editor" })).toMatchObject({
      ok: false,
      field: "actor_role",
    });
    expect(checkTransition(story, "approve", { actorRole: "approver" }).ok).toBe(true);
  });
});

describe("story transitions through the internal API", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness();
  });
  afterAll(() => h.close());

  test("draft -> submit -> approve -> publish -> unpublish -> publish", async () => {
    const { storyId } = await orgWithDraft(h, "flow");
    expect((await transition(h, storyId, "publish")).status).toBe(409);
    expect((await transition(h, storyId, "submit")).body.status).toBe("review_required");
    const approved = await transition(h, storyId, "approve", { actor_role: "approver" });
    expect(approved.body.status).toBe("approved");
    const published = await transition(h, storyId, "publish");
    expect(published.body.status).toBe("published");
    expect(published.body.published_at).not.toBeNull();
    expect((await transition(h, storyId, "unpublish")).body.status).toBe("unpublished");
    expect((await transition(h, storyId, "publish")).body.status).toBe("published");
  });

  test("a new version changes the story's topics and featured flag when given", async () => {
    const { storyId } = await orgWithDraft(h, "versionfields");
    const written = await h.call("POST", `/stories/${storyId}/versions`, {
      title: "Second",
      topics: ["harbour", "boats"],
      featured: true,
      external_url: "https://example.com/ignored-for-a-press-release",
    });
    expect(written.status).toBe(201);
    const now = await h.call("GET", `/stories/${storyId}`);
    expect([...now.body.topics].sort()).toEqual(["boats", "harbour"]);
    const [row] = await h.database.db
      .select({ featured: stories.featured, externalUrl: stories.externalUrl })
      .from(stories)
      .where(eq(stories.id, storyId));
    expect(row).toEqual({ featured: true, externalUrl: null });
    const refused = await h.call("POST", `/stories/${storyId}/versions`, {
      title: "Third",
      topics: ["Not A Slug"],
    });
    expect(refused.status).toBe(422);
  });

  test("a new version after approval needs approval again", async () => {
    const { storyId } = await orgWithDraft(h, "reapprove");
    await transition(h, storyId, "submit");
    await transition(h, storyId, "approve");
    const version = await h.call("POST", `/stories/${storyId}/versions`, { title: "Second take" });
    expect(version.status).toBe(201);
    expect(version.body).toMatchObject({ status: "draft", version: 2, title: "Second take" });
    const refused = await transition(h, storyId, "publish");
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("invalid_transition");
    await transition(h, storyId, "submit");
    await transition(h, storyId, "approve");
    expect((await transition(h, storyId, "publish")).body.status).toBe("published");
  });
});
