import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, orgWithDraft, transition, workspaceHarness } from "./support/harness.ts";

describe("story transitions through the internal API: refusals", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness();
  });
  afterAll(() => h.close());

  test("a version cannot be written while in review or published", async () => {
    const { storyId } = await orgWithDraft(h, "noversion");
    await transition(h, storyId, "submit");
    const inReview = await h.call("POST", `/stories/${storyId}/versions`, { title: "Sneaky" });
    expect(inReview.status).toBe(409);
  });

  test("a version from a stale base_version is refused with 409 and nothing is written", async () => {
    const { storyId } = await orgWithDraft(h, "stalebase");
    const first = await h.call("POST", `/stories/${storyId}/versions`, {
      title: "Second",
      base_version: 1,
    });
    expect(first.status).toBe(201);
    expect(first.body.version).toBe(2);
    const stale = await h.call("POST", `/stories/${storyId}/versions`, {
      title: "Overwrite",
      base_version: 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("conflict");
    expect(stale.body.error.fields).toEqual([{ field: "base_version", reason: "stale" }]);
    const now = await h.call("GET", `/stories/${storyId}`);
    expect(now.body.version).toBe(2);
    expect(now.body.title).toBe("Second");
    const invalid = await h.call("POST", `/stories/${storyId}/versions`, {
      title: "Zero",
      base_version: 0,
    });
    expect(invalid.status).toBe(422);
  });

  test("reject needs a note and records the decision", async () => {
    const { storyId } = await orgWithDraft(h, "reject");
    await transition(h, storyId, "submit");
    const noNote = await transition(h, storyId, "reject");
    expect(noNote.status).toBe(422);
    expect(noNote.body.error.fields[0].field).toBe("note");
    const rejected = await transition(h, storyId, "reject", { note: "Needs a source." });
    expect(rejected.body.status).toBe("rejected");
    expect((await transition(h, storyId, "submit")).body.status).toBe("review_required");
  });

  test("an editor cannot approve", async () => {
    const { storyId } = await orgWithDraft(h, "editor");
    await transition(h, storyId, "submit");
    const refused = await transition(h, storyId, "approve", { actor_role: "editor" });
    expect(refused.status).toBe(422);
    expect(refused.body.error.fields[0].field).toBe("actor_role");
  });

  test("unknown action and unknown story", async () => {
    const { storyId } = await orgWithDraft(h, "unknowns");
    expect((await transition(h, storyId, "teleport")).status).toBe(422);
    expect((await transition(h, crypto.randomUUID(), "submit")).status).toBe(404);
    expect((await transition(h, "not-a-uuid", "submit")).status).toBe(404);
  });

  test("a duplicate slug in the same organization is refused", async () => {
    await orgWithDraft(h, "dupes");
    const again = await h.call("POST", "/orgs/dupes/stories", {
      type: "insight",
      slug: "first-story",
      title: "Again",
    });
    expect(again.status).toBe(409);
  });
});
