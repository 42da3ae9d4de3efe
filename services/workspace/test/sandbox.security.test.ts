import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiKeys, approvalDecisions, organizations, stories } from "@newsroom/shared/db/schema";
import { count, eq, isNull } from "drizzle-orm";
import { seedDemo } from "../src/demo/seed.ts";
import { type Harness, workspaceHarness } from "./support/harness.ts";

const KEY = { scopes: ["stories:read"], lifetime_days: 30 };

async function storiesOf(h: Harness, orgId: string) {
  return h.database.db.select().from(stories).where(eq(stories.organizationId, orgId));
}

async function decisionsOf(h: Harness, orgId: string) {
  const [row] = await h.database.db
    .select({ n: count() })
    .from(approvalDecisions)
    .where(eq(approvalDecisions.organizationId, orgId));
  return row?.n ?? 0;
}

describe("sandbox seed (development)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness({ serviceEnv: "development" });
  });
  afterAll(() => h.close());

  test("an organization not marked sandbox is refused, and nothing is written", async () => {
    const org = await h.call("POST", "/orgs", { slug: "real-client", name: "Real client" });
    expect(org.body.sandbox).toBe(false);
    const refused = await h.call("POST", "/orgs/real-client/sandbox-seed", { count: 8 });
    expect(refused.status).toBe(409);
    expect(refused.body.error.fields).toEqual([
      expect.objectContaining({ field: "sandbox", reason: "not_sandbox" }),
    ]);
    expect(await storiesOf(h, org.body.id)).toEqual([]);
    const [row] = await h.database.db
      .select()
      .from(organizations)
      .where(eq(organizations.id, org.body.id));
    expect(row).toMatchObject({ sandbox: false, newsroomRunning: false });
  });

  test("sandbox is set on create and update; seeded stories are synthetic, with no decisions", async () => {
    const created = await h.call("POST", "/orgs", { slug: "play", name: "Play", sandbox: true });
    expect(created.body.sandbox).toBe(true);
    const other = await h.call("POST", "/orgs", { slug: "play-two", name: "Play two" });
    const updated = await h.call("PATCH", "/orgs/play-two", { sandbox: true });
    expect(updated.status).toBe(200);
    expect(updated.body.sandbox).toBe(true);

    for (const org of [created.body, other.body]) {
      const seeded = await h.call("POST", `/orgs/${org.slug}/sandbox-seed`, { count: 16 });
      expect(seeded.status).toBe(200);
      expect(seeded.body.stories_created).toBe(16);
      const rows = await storiesOf(h, org.id);
      expect(rows).toHaveLength(16);
      expect(rows.every((row) => row.synthetic && row.approvedVersion === null)).toBe(true);
      expect(rows.map((row) => row.status)).toContain("published");
      expect(await decisionsOf(h, org.id)).toBe(0);
    }
  });

  test("stories written through the API are not synthetic", async () => {
    await h.call("POST", "/orgs", { slug: "written", name: "Written" });
    const story = await h.call("POST", "/orgs/written/stories", {
      type: "insight",
      slug: "by-hand",
      title: "By hand",
    });
    const [row] = await h.database.db.select().from(stories).where(eq(stories.id, story.body.id));
    expect(row?.synthetic).toBe(false);
  });
});

describe("sandbox seed (production)", () => {
  test("is never made, even for an organization marked sandbox", async () => {
    const h = await workspaceHarness({ serviceEnv: "production" });
    try {
      const org = await h.call("POST", "/orgs", { slug: "prod-play", name: "P", sandbox: true });
      const refused = await h.call("POST", "/orgs/prod-play/sandbox-seed", { count: 8 });
      expect(refused.status).toBe(404);
      expect(await storiesOf(h, org.body.id)).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe("a deployment creates only the keys it accepts", () => {
  for (const [serviceEnv, accepted, refused] of [
    ["production", "live", "test"],
    ["sandbox", "test", "live"],
    ["development", "test", "live"],
  ] as const) {
    test(`${serviceEnv}: ${accepted} keys only`, async () => {
      const h = await workspaceHarness({ serviceEnv });
      try {
        const org = await h.call("POST", "/orgs", { slug: "keyed", name: "Keyed" });
        const no = await h.call("POST", "/orgs/keyed/keys", { ...KEY, environment: refused });
        expect(no.status).toBe(422);
        expect(no.body.error.code).toBe("validation_failed");
        expect(no.body.error.fields).toEqual([
          expect.objectContaining({ field: "environment", reason: "wrong_environment" }),
        ]);
        const yes = await h.call("POST", "/orgs/keyed/keys", { ...KEY, environment: accepted });
        expect(yes.status).toBe(201);
        expect(yes.body.secret.startsWith(`armk_${accepted}_`)).toBe(true);
        const rows = await h.database.db
          .select()
          .from(apiKeys)
          .where(eq(apiKeys.organizationId, org.body.id));
        expect(rows.map((row) => row.environment)).toEqual([accepted]);
      } finally {
        await h.close();
      }
    });
  }
});

describe("demo seed", () => {
  for (const [serviceEnv, prefix] of [
    ["development", "armk_test_"],
    ["production", "armk_live_"],
  ] as const) {
    test(`${serviceEnv}: a key it accepts, decisions only by its members`, async () => {
      const h = await workspaceHarness({ serviceEnv });
      try {
        const demo = await seedDemo(h.database.db, "armage", serviceEnv);
        expect(demo.seeded).toBe(true);
        expect(demo.testKey?.startsWith(prefix)).toBe(true);
        const rows = await h.database.db.select().from(stories);
        expect(rows.length).toBeGreaterThan(40);
        // The demo's approver is a real member: its stories are not the sandbox's synthetic ones.
        expect(rows.some((row) => row.synthetic)).toBe(false);
        const [decisions] = await h.database.db.select({ n: count() }).from(approvalDecisions);
        expect(decisions?.n).toBeGreaterThan(40);
        const [unsigned] = await h.database.db
          .select({ n: count() })
          .from(approvalDecisions)
          .where(isNull(approvalDecisions.personId));
        expect(unsigned?.n).toBe(0);
        // The newsletter origin rule: a local http origin in development only.
        const [northwind] = await h.database.db
          .select({ origins: organizations.newsletterOrigins })
          .from(organizations)
          .where(eq(organizations.slug, "northwind"));
        expect(northwind?.origins).toEqual(
          serviceEnv === "development"
            ? ["http://localhost:5173", "https://www.northwind.example"]
            : ["https://www.northwind.example"],
        );
        expect((await seedDemo(h.database.db, "armage", serviceEnv)).seeded).toBe(false);
      } finally {
        await h.close();
      }
    });
  }
});
