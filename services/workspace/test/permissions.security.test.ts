import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  approvalDecisions,
  MEMBER_ROLES,
  type MemberRole,
  stories,
} from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import {
  can,
  PERMISSION_ACTIONS,
  type PermissionAction,
} from "../src/identity/members/permissions.ts";
import { readmeTable } from "./support/permission-table.ts";
import {
  orgWithMembers,
  storyInReview,
  unique,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/** The cases come from docs/permissions.md's "Workspace permissions" table. */
const table = readmeTable();

describe("docs/permissions.md's table is the code's table", () => {
  test("the same actions and roles", () => {
    expect([...table.keys()].sort()).toEqual([...PERMISSION_ACTIONS].sort());
    for (const allowed of table.values()) {
      expect(Object.keys(allowed).sort()).toEqual([...MEMBER_ROLES].sort());
    }
  });
  for (const [action, allowed] of table) {
    for (const role of MEMBER_ROLES) {
      test(`${role} ${allowed[role] ? "may" : "may not"} ${action}`, () => {
        expect(can(role, action)).toBe(allowed[role]);
      });
    }
  }
});

/**
 * What each action the web app offers so far does over HTTP; the others have no page yet. The
 * key.* and endpoint.* cases, from the same table, are in web-keys.security.test.ts and
 * test/flows/workspace-web-webhook-endpoints.test.ts.
 */
const WEB_ACTIONS: PermissionAction[] = ["view", "story.decide", "story.publish"];

describe("every role, every web action, through the pages", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  const clients = {} as Record<MemberRole, WebClient>;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "perm-org", 1);
    for (const role of MEMBER_ROLES) clients[role] = await h.signedIn(org.members[role]);
  }, 120_000);
  afterAll(() => h?.close());

  const statusOf = async (id: string) =>
    (await h.runtime.database.db.select().from(stories).where(eq(stories.id, id)))[0]!.status;

  for (const action of WEB_ACTIONS) {
    for (const role of MEMBER_ROLES) {
      const allowed = table.get(action)![role];
      test(`${role}: ${action} is ${allowed ? "allowed" : "403"}`, async () => {
        const client = clients[role];
        if (action === "view") {
          const story = org.storyIds[0]!;
          for (const path of [
            "/app/orgs/perm-org",
            "/app/orgs/perm-org/stories",
            "/app/orgs/perm-org/approvals",
            `/app/stories/${story}`,
          ]) {
            expect((await client.get(path)).status).toBe(allowed ? 200 : 403);
          }
          return;
        }
        if (action === "story.publish") {
          const id = await storyInReview(h, "perm-org", `${role}-publish`);
          await h.admin("POST", `/stories/${id}/transitions`, { action: "approve" });
          const page = await client.get(`/app/stories/${id}`);
          expect(page.text.includes(`action="/app/stories/${id}/publish"`)).toBe(allowed);
          const answer = await client.post(`/app/stories/${id}/publish`);
          expect(answer.status).toBe(allowed ? 303 : 403);
          expect(await statusOf(id)).toBe(allowed ? "published" : "approved");
          return;
        }
        for (const decision of ["approve", "reject"] as const) {
          const id = await storyInReview(h, "perm-org", `${role}-${decision}`);
          await client.get(`/app/stories/${id}`);
          const answer = await client.post(`/app/stories/${id}/${decision}`, {
            note: "Please cite the source.",
          });
          if (allowed) {
            expect(answer.status).toBe(303);
            expect(await statusOf(id)).toBe(decision === "approve" ? "approved" : "rejected");
          } else {
            expect(answer.status).toBe(403);
            expect(answer.text).toContain("Not allowed");
            expect(await statusOf(id)).toBe("review_required");
          }
        }
      });
    }
  }

  test("a decision records the person and their role, never the operator", async () => {
    const id = await storyInReview(h, "perm-org", "recorded");
    await clients.approver.get(`/app/stories/${id}`);
    await clients.approver.post(`/app/stories/${id}/approve`);
    const [decision] = await h.runtime.database.db
      .select()
      .from(approvalDecisions)
      .where(eq(approvalDecisions.storyId, id));
    expect(decision).toMatchObject({
      decision: "approved",
      actorType: "person",
      actorRole: "approver",
    });
    const page = await clients.viewer.get(`/app/stories/${id}`);
    expect(page.text).toContain(org.members.approver);
  });

  test("another organization's owner: its pages and stories answer 404, nothing changes", async () => {
    const other = await orgWithMembers(h, "other-org", 0);
    const stranger = await h.signedIn(other.members.owner);
    const id = await storyInReview(h, "perm-org", "not-yours");
    for (const path of [
      "/app/orgs/perm-org",
      "/app/orgs/perm-org/approvals",
      `/app/stories/${id}`,
    ]) {
      expect((await stranger.get(path)).status).toBe(404);
    }
    await stranger.get("/app/");
    for (const decision of ["approve", "reject"]) {
      const answer = await stranger.post(`/app/stories/${id}/${decision}`, { note: "mine now" });
      expect(answer.status).toBe(404);
    }
    expect(await statusOf(id)).toBe("review_required");
    const home = await stranger.get("/app/");
    expect(home.text).not.toContain("perm-org");
  });

  test("staff (an admin of the house organization) act in every organization", async () => {
    await h.admin("POST", "/orgs", { slug: "armage", name: "Armage" });
    const staffEmail = unique("staff");
    await h.admin("POST", "/orgs/armage/members", { email: staffEmail, role: "admin" });
    const staff = await h.signedIn(staffEmail);
    const home = await staff.get("/app/");
    expect(home.text).toContain("/app/orgs/perm-org");
    expect(home.text).toContain('action="/app/orgs"');
    const id = await storyInReview(h, "perm-org", "staff-decides");
    await staff.get(`/app/stories/${id}`);
    expect((await staff.post(`/app/stories/${id}/approve`)).status).toBe(303);
    expect(await statusOf(id)).toBe("approved");
  });

  test("only staff create organizations", async () => {
    await clients.owner.get("/app/");
    const refused = await clients.owner.post("/app/orgs", { name: "Mine", slug: "owner-made" });
    expect(refused.status).toBe(403);
    expect((await h.admin("GET", "/orgs/owner-made")).status).toBe(404);
  });
});
