import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ListOf, StoryDetailOut, StoryOut } from "@newsroom/shared/records";
import { applyStoryAction, insertStoryVersion } from "@newsroom/shared/testing/builders";
import { AWKWARD_TITLE, clientApiFixture, expectShape, type Fixture } from "./support/fixture.ts";

let f: Fixture;
beforeAll(async () => {
  f = await clientApiFixture();
});
afterAll(async () => {
  await f.close();
});

type List = {
  object: string;
  data: { id: string; status: string; updated_at: string }[];
  has_more: boolean;
  next_cursor: string | null;
};

async function list(path: string, key = f.a.key): Promise<List> {
  const response = await f.get(path, { key });
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("private, no-store");
  const body = await response.json();
  expectShape(ListOf(StoryOut), body);
  return body;
}

describe("GET /v1/stories", () => {
  test("lists every status of the organization, newest change first, every field present", async () => {
    const body = await list("/v1/stories");
    expect(body.object).toBe("list");
    expect(body.has_more).toBe(false);
    expect(body.next_cursor).toBeNull();
    expect(new Set(body.data.map((s) => s.id))).toEqual(new Set(f.a.storyIds));
    const times = body.data.map((s) => Date.parse(s.updated_at));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    const awkward = body.data.find((s) => s.id === f.a.decided) as unknown as Record<
      string,
      unknown
    >;
    expect(awkward).toMatchObject({
      object: "story",
      type: "press_release",
      slug: "awkward-title",
      status: "published",
      title: AWKWARD_TITLE,
      version: 1,
      topics: ["culture", "policy"],
    });
    expect(awkward.published_at as string).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
    );
    const draft = body.data.find((s) => s.status === "draft") as unknown as Record<string, unknown>;
    expect(draft).toHaveProperty("published_at", null);
  });

  test("filters by a comma-separated subset of statuses", async () => {
    const published = await list("/v1/stories?status=published");
    expect(new Set(published.data.map((s) => s.id))).toEqual(new Set(f.a.published));
    const two = await list("/v1/stories?status=review_required,draft");
    expect(two.data.map((s) => s.status).sort()).toEqual(["draft", "review_required"]);
    const none = await list("/v1/stories?status=archived");
    expect(none.data).toEqual([]);
  });

  test("pages with limit and cursor: exact has_more, no overlap", async () => {
    const first = await list("/v1/stories?limit=3");
    expect(first.data).toHaveLength(3);
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toMatch(/^[A-Za-z0-9_-]{1,200}$/);
    const second = await list(`/v1/stories?limit=3&cursor=${first.next_cursor}`);
    expect(second.data).toHaveLength(1);
    expect(second.has_more).toBe(false);
    expect(second.next_cursor).toBeNull();
    const seen = [...first.data, ...second.data].map((s) => s.id);
    expect(new Set(seen).size).toBe(4);
    const exact = await list("/v1/stories?limit=4");
    expect(exact.has_more).toBe(false);
    expect(exact.next_cursor).toBeNull();
  });

  test("an organization whose newsroom is not running gets an empty list, answered normally", async () => {
    const body = await list("/v1/stories", f.idle.key);
    expect(body).toEqual({ object: "list", data: [], has_more: false, next_cursor: null });
  });
});

describe("GET /v1/stories/{id}", () => {
  test("StoryDetail: the current body and every decision newest first", async () => {
    const response = await f.get(`/v1/stories/${f.a.decided}`, { key: f.a.key });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    const story = await response.json();
    expectShape(StoryDetailOut, story);
    expect(story.id).toBe(f.a.decided);
    expect(story.title).toBe(AWKWARD_TITLE);
    expect(story.body[0]).toEqual({ type: "heading", level: 2, text: "Heading <one> & more" });
    expect(story.approvals.map((d: { decision: string }) => d.decision)).toEqual([
      "approved",
      "rejected",
    ]);
    expect(story.approvals[1]).toMatchObject({
      object: "approval_decision",
      version: 1,
      actor_type: "person",
      note: "Add a source.",
    });
    expect(story.approvals[0].note).toBeNull();
    const at = story.approvals.map((d: { decided_at: string }) => Date.parse(d.decided_at));
    expect(at[0]).toBeGreaterThanOrEqual(at[1]);
  });

  test("a new version shows its body and number at once", async () => {
    const response0 = await f.get(`/v1/stories?status=draft`, { key: f.a.key });
    const [draft] = (await response0.json()).data;
    await insertStoryVersion(f.db, draft.id, {
      title: "A draft, second take",
      body: [{ type: "paragraph", text: "New words." }],
    });
    const story = await (await f.get(`/v1/stories/${draft.id}`, { key: f.a.key })).json();
    expect(story.version).toBe(2);
    expect(story.title).toBe("A draft, second take");
    expect(story.body).toEqual([{ type: "paragraph", text: "New words." }]);
    expect(story.approvals).toEqual([]);
  });

  test("an upper-case UUID finds the same story", async () => {
    const response = await f.get(`/v1/stories/${f.a.decided.toUpperCase()}`, { key: f.a.key });
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(f.a.decided);
  });
});

describe("GET /v1/approvals", () => {
  test("lists the stories in review_required, and follows transitions at once", async () => {
    const before = await list("/v1/approvals");
    expect(before.data.map((s) => s.id)).toEqual(f.a.inReview);
    expect(before.data.every((s) => s.status === "review_required")).toBe(true);
    await applyStoryAction(f.db, f.a.inReview[0]!, "approve");
    const after = await list("/v1/approvals");
    expect(after.data).toEqual([]);
  });

  test("pages like every list, and is empty while the newsroom is not running", async () => {
    const idle = await list("/v1/approvals", f.idle.key);
    expect(idle.data).toEqual([]);
    const b = await list("/v1/approvals?limit=1", f.b.key);
    expect(b.data).toHaveLength(1);
    expect(b.has_more).toBe(false);
  });
});
