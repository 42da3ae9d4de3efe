import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEvents } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { ADMIN_TOKEN, type Harness, workspaceHarness } from "./support/harness.ts";

/** Members of an organization through the internal API and `npm run admin -- member-add`. */
let h: Harness;
beforeAll(async () => {
  h = await workspaceHarness();
  await h.call("POST", "/orgs", { slug: "members-org", name: "Members" });
});
afterAll(() => h.close());

describe("POST /internal/v1/orgs/{org}/members", () => {
  test("adds a person by address (lower-cased), then changes the role in place", async () => {
    const added = await h.call("POST", "/orgs/members-org/members", {
      email: "  Ada@Example.COM ",
      role: "editor",
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      object: "member",
      email: "ada@example.com",
      role: "editor",
    });
    const changed = await h.call("POST", "/orgs/members-org/members", {
      email: "ada@example.com",
      role: "approver",
    });
    expect(changed.status).toBe(200);
    expect(changed.body.person_id).toBe(added.body.person_id);
    expect(changed.body.role).toBe("approver");
  });

  test("audits additions, role changes and removals with the operator as actor", async () => {
    await h.call("POST", "/orgs/members-org/members", { email: "aud@example.com", role: "viewer" });
    await h.call("POST", "/orgs/members-org/members", { email: "aud@example.com", role: "admin" });
    const removed = await h.call("DELETE", "/orgs/members-org/members/aud%40example.com");
    expect(removed.status).toBe(204);
    const org = await h.call("GET", "/orgs/members-org");
    const events = await h.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.organizationId, org.body.id));
    const actions = events.map((event) => event.action);
    expect(actions).toContain("member.added:viewer");
    expect(actions).toContain("member.role_changed:viewer>admin");
    expect(actions).toContain("member.removed:admin");
    expect(events.every((event) => event.actor === "admin")).toBe(true);
  });
});

describe("npm run admin -- member-add", () => {
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: h.fetch });
  });
  afterAll(() => server.stop(true));

  test("member-add <org> <email> --role <role> prints the member", async () => {
    const child = Bun.spawn(
      [
        process.execPath,
        "services/workspace/src/cli.ts",
        "member-add",
        "members-org",
        "cli@example.com",
        "--role",
        "owner",
      ],
      {
        cwd: `${import.meta.dir}/../../..`,
        env: {
          ...process.env,
          WORKSPACE_URL: `http://127.0.0.1:${server.port}`,
          ADMIN_TOKEN,
          LOG_LEVEL: "error",
        },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [code, out] = await Promise.all([child.exited, new Response(child.stdout).text()]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ email: "cli@example.com", role: "owner" });
  });
});
