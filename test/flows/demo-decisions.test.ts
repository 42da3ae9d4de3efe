import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { approvalDecisions, workspacePeople } from "@newsroom/shared/db/schema";
import { seedDemo } from "@newsroom/workspace/demo/seed";
import { STATUSES_AFTER_APPROVAL } from "@newsroom/workspace/stories/state-machine";
import { eq, isNull } from "drizzle-orm";
import { type WebHarness, webHarness } from "../support/workspace-web-embedded.ts";

interface Story {
  id: string;
  slug: string;
  status: string;
  version: number | null;
}
interface Decision {
  version: number | null;
  decision: string;
  actor_type: string;
  actor_role: string;
  note: string | null;
}

/**
 * A flow across the workspace (its demo seed and web app) and the client API: every demo story
 * past review carries an approval of its current version by the demo's approver, so the web
 * app's Publish works on it.
 */
describe("the demo's stories obey the approval invariant", () => {
  let h: WebHarness;
  let northwindKey: string;
  let houseKey: string;

  beforeAll(async () => {
    h = await webHarness();
    const demo = await seedDemo(h.embedded.runtime.database.db, "armage", "development");
    northwindKey = demo.testKey!;
    const house = await h.admin("POST", "/orgs/armage/keys", {
      environment: "test",
      scopes: ["stories:read"],
      lifetime_days: 30,
    });
    if (house.status !== 201) throw new Error(`house key: ${JSON.stringify(house.body)}`);
    houseKey = house.body.secret;
  }, 120_000);
  afterAll(() => h?.close());

  const get = async (path: string, key: string) => {
    const response = await fetch(`${h.url}${path}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    return response.json();
  };

  /** Every story of the key's organization, page by page, each with its decisions. */
  async function walk(key: string): Promise<{ story: Story; approvals: Decision[] }[]> {
    const all: Story[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Story[]; next_cursor: string | null } = await get(
        `/v1/stories?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        key,
      );
      all.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return Promise.all(
      all.map(async (story) => ({
        story,
        approvals: (await get(`/v1/stories/${story.id}`, key)).approvals,
      })),
    );
  }

  function checkInvariant(walked: { story: Story; approvals: Decision[] }[], role: string) {
    let past = 0;
    for (const { story, approvals } of walked) {
      const newest = approvals[0];
      if (STATUSES_AFTER_APPROVAL.includes(story.status as never)) {
        past += 1;
        expect({ slug: story.slug, decision: newest?.decision, version: newest?.version }).toEqual({
          slug: story.slug,
          decision: "approved",
          version: story.version,
        });
        expect(newest?.actor_type).toBe("person");
        expect(newest?.actor_role).toBe(role);
      } else if (story.status === "rejected") {
        expect(newest?.decision).toBe("rejected");
        expect(newest?.note).toBeTruthy();
      } else {
        expect({ slug: story.slug, approvals }).toEqual({ slug: story.slug, approvals: [] });
      }
    }
    return past;
  }

  test("the client's stories: every one past review approved in its current version", async () => {
    const walked = await walk(northwindKey);
    expect(walked).toHaveLength(21);
    const statuses = new Set(walked.map((w) => w.story.status));
    for (const status of ["published", "approved", "scheduled", "unpublished", "rejected"]) {
      expect(statuses.has(status)).toBe(true);
    }
    expect(checkInvariant(walked, "approver")).toBe(13);
  });

  test("the house's stories, published ones included, by its owner", async () => {
    const walked = await walk(houseKey);
    expect(walked).toHaveLength(40);
    expect(checkInvariant(walked, "owner")).toBe(37);
  });

  test("the deciders are the demo's real members", async () => {
    const { db } = h.embedded.runtime.database;
    const deciders = await db
      .selectDistinct({ email: workspacePeople.email })
      .from(approvalDecisions)
      .innerJoin(workspacePeople, eq(workspacePeople.id, approvalDecisions.personId));
    expect(deciders.map((d) => d.email).sort()).toEqual([
      "approver@northwind.example",
      "staff@armage.example",
    ]);
    const [unsigned] = await db
      .select({ id: approvalDecisions.id })
      .from(approvalDecisions)
      .where(isNull(approvalDecisions.personId));
    expect(unsigned).toBeUndefined();
  });

  test("the web app publishes a demo story the approver approved", async () => {
    const approved = (await walk(northwindKey)).find((w) => w.story.status === "approved")!.story;
    const approver = await h.signedIn("approver@northwind.example");
    const page = await approver.get(`/app/stories/${approved.id}`);
    expect(page.text).toContain(`Publish the approved version ${approved.version}:`);
    expect((await approver.post(`/app/stories/${approved.id}/publish`)).status).toBe(303);
    const after = await get(`/v1/stories/${approved.id}`, northwindKey);
    expect(after.status).toBe("published");
  });
});
