import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  auditEvents,
  hostnames,
  MEMBER_ROLES,
  type MemberRole,
  sites,
  workspaceMemberships,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { and, eq } from "drizzle-orm";
import { audit } from "../src/audit.ts";
import type { PermissionAction } from "../src/identity/members/permissions.ts";
import { INVITATIONS_PER_HOUR } from "../src/web/routes/members.ts";
import { readmeTable } from "./support/permission-table.ts";
import {
  orgWithMembers,
  storyInReview,
  unique,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/**
 * The settings pages' actions for every role, from docs/permissions.md's "Workspace permissions" table:
 * allowed, or 403 with nothing changed. Another organization's pages are a 404, the last owner
 * stays, and the audit log pages by cursor.
 */
const table = readmeTable();
const SETTINGS_ACTIONS: PermissionAction[] = [
  "newsletter.manage",
  "sites.manage",
  "members.manage",
  "members.manage_owners",
  "audit.view",
];

describe("the settings pages, every role", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  const clients = {} as Record<MemberRole, WebClient>;
  const base = "/app/orgs/perm-settings";
  const db = () => h.runtime.database.db;

  const originsOf = async (slug: string) =>
    (await h.admin("GET", `/orgs/${slug}`)).body.newsletter_origins as string[];
  const roleOf = async (orgSlug: string, email: string) => {
    const organization = (await h.admin("GET", `/orgs/${orgSlug}`)).body.id as string;
    const [row] = await db()
      .select({ role: workspaceMemberships.role })
      .from(workspaceMemberships)
      .innerJoin(workspacePeople, eq(workspacePeople.id, workspaceMemberships.personId))
      .where(
        and(
          eq(workspaceMemberships.organizationId, organization),
          eq(workspacePeople.email, email.toLowerCase()),
        ),
      );
    return row?.role ?? null;
  };
  const personId = async (email: string) =>
    (
      await db()
        .select({ id: workspacePeople.id })
        .from(workspacePeople)
        .where(eq(workspacePeople.email, email.toLowerCase()))
    )[0]!.id;
  const hostnameExists = async (name: string) =>
    (await db().select().from(hostnames).where(eq(hostnames.hostname, name))).length === 1;
  const siteExists = async (slug: string) =>
    (await db().select().from(sites).where(eq(sites.slug, slug))).length === 1;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "perm-settings", 0);
    await h.admin("POST", "/orgs/perm-settings/sites", {
      site: "perm-settings-site",
      name: "Base",
      publisher: "Base",
    });
    for (const role of MEMBER_ROLES) clients[role] = await h.signedIn(org.members[role]);
  }, 120_000);
  afterAll(() => h?.close());

  for (const action of SETTINGS_ACTIONS) {
    for (const role of MEMBER_ROLES) {
      const allowed = table.get(action)![role];
      test(`${role}: ${action} is ${allowed ? "allowed" : "403"}`, async () => {
        const client = clients[role];
        const refusedOr = (status: number) => (allowed ? status : 403);
        switch (action) {
          case "newsletter.manage": {
            expect((await client.get(`${base}/newsletter`)).status).toBe(refusedOr(200));
            const origin = `https://${role}.perm.example`;
            const added = await client.post(`${base}/newsletter/origins`, { origin });
            expect(added.status).toBe(refusedOr(303));
            expect((await originsOf("perm-settings")).includes(origin)).toBe(allowed);
            return;
          }
          case "sites.manage": {
            expect((await client.get(`${base}/sites`)).status).toBe(refusedOr(200));
            const site = `${role}-site`;
            const fields = { site, name: "A site", publisher: "A publisher", enabled: "yes" };
            expect((await client.post(`${base}/sites`, fields)).status).toBe(refusedOr(303));
            expect(await siteExists(site)).toBe(allowed);
            const hostname = `${role}.hosts.example`;
            const named = await client.post(`${base}/hostnames`, {
              site: "perm-settings-site",
              hostname,
            });
            expect(named.status).toBe(refusedOr(303));
            expect(await hostnameExists(hostname)).toBe(allowed);
            return;
          }
          case "members.manage": {
            expect((await client.get(`${base}/members`)).status).toBe(refusedOr(200));
            const invited = unique(`invited-by-${role}`);
            const answer = await client.post(`${base}/members`, { email: invited, role: "viewer" });
            expect(answer.status).toBe(refusedOr(303));
            expect(await roleOf("perm-settings", invited)).toBe(allowed ? "viewer" : null);
            // A role change and a removal of someone else.
            const target = unique(`target-of-${role}`);
            await h.admin("POST", "/orgs/perm-settings/members", { email: target, role: "viewer" });
            const id = await personId(target);
            const changed = await client.post(`${base}/members/${id}/role`, { role: "editor" });
            expect(changed.status).toBe(refusedOr(303));
            expect(await roleOf("perm-settings", target)).toBe(allowed ? "editor" : "viewer");
            const removed = await client.post(`${base}/members/${id}/remove`, { confirm: "yes" });
            expect(removed.status).toBe(refusedOr(303));
            expect(await roleOf("perm-settings", target)).toBe(allowed ? null : "viewer");
            return;
          }
          case "members.manage_owners": {
            const invited = unique(`owner-by-${role}`);
            const answer = await client.post(`${base}/members`, { email: invited, role: "owner" });
            expect(answer.status).toBe(refusedOr(303));
            expect(await roleOf("perm-settings", invited)).toBe(allowed ? "owner" : null);
            // Unmaking an owner, or removing one, needs the same right.
            const owner = unique(`second-owner-of-${role}`);
            await h.admin("POST", "/orgs/perm-settings/members", { email: owner, role: "owner" });
            const id = await personId(owner);
            const demoted = await client.post(`${base}/members/${id}/role`, { role: "viewer" });
            expect(demoted.status).toBe(refusedOr(303));
            expect(await roleOf("perm-settings", owner)).toBe(allowed ? "viewer" : "owner");
            if (!allowed) {
              const removed = await client.post(`${base}/members/${id}/remove`, { confirm: "yes" });
              expect(removed.status).toBe(403);
              expect(await roleOf("perm-settings", owner)).toBe("owner");
            }
            return;
          }
          case "audit.view": {
            expect((await client.get(`${base}/audit`)).status).toBe(refusedOr(200));
            return;
          }
        }
      });
    }
  }

  test("every organization page links to the settings the person may open, and no others", async () => {
    const id = await storyInReview(h, "perm-settings", "nav-links");
    for (const path of [base, `/app/stories/${id}`]) {
      const owner = await clients.owner.get(path);
      const viewer = await clients.viewer.get(path);
      for (const page of ["newsletter", "sites", "members", "audit"]) {
        expect(owner.text).toContain(`href="${base}/${page}"`);
        expect(viewer.text).not.toContain(`href="${base}/${page}"`);
      }
    }
  });

  test("an admin's page offers no owner role", async () => {
    const page = await clients.admin.get(`${base}/members`);
    expect(page.text).not.toContain('<option value="owner"');
    expect(page.text).toContain("Only an owner changes an owner.");
    const mine = await clients.owner.get(`${base}/members`);
    expect(mine.text).toContain('<option value="owner"');
  });

  test("another organization's owner: every settings page and action is a 404, nothing changes", async () => {
    const other = await orgWithMembers(h, "perm-elsewhere", 0);
    const stranger = await h.signedIn(other.members.owner);
    const before = await originsOf("perm-settings");
    for (const page of ["newsletter", "sites", "members", "audit"]) {
      expect((await stranger.get(`${base}/${page}`)).status).toBe(404);
    }
    await stranger.get("/app/");
    const viewerId = await personId(org.members.viewer);
    const posts: [string, Record<string, string>][] = [
      [`${base}/newsletter/enable`, {}],
      [`${base}/newsletter/disable`, { confirm: "yes" }],
      [`${base}/newsletter/origins`, { origin: "https://stranger.example" }],
      [
        `${base}/newsletter/origins/remove`,
        { origin: before[0] ?? "https://x.example", confirm: "yes" },
      ],
      [`${base}/sites`, { site: "stranger-site", name: "S", publisher: "S" }],
      [`${base}/hostnames`, { site: "perm-settings-site", hostname: "stranger.example" }],
      [`${base}/members`, { email: unique("stranger-friend"), role: "owner" }],
      [`${base}/members/${viewerId}/role`, { role: "owner" }],
      [`${base}/members/${viewerId}/remove`, { confirm: "yes" }],
    ];
    for (const [path, fields] of posts) {
      expect({ path, status: (await stranger.post(path, fields)).status }).toEqual({
        path,
        status: 404,
      });
    }
    expect(await originsOf("perm-settings")).toEqual(before);
    expect(await siteExists("stranger-site")).toBe(false);
    expect(await hostnameExists("stranger.example")).toBe(false);
    expect(await roleOf("perm-settings", org.members.viewer)).toBe("viewer");

    // Its own pages cannot reach this organization's site or members either.
    await stranger.get("/app/orgs/perm-elsewhere/sites");
    const borrowed = await stranger.post("/app/orgs/perm-elsewhere/hostnames", {
      site: "perm-settings-site",
      hostname: "borrowed.example",
    });
    expect(borrowed.status).toBe(422);
    expect(borrowed.text).toContain("Choose one of this organization&#39;s sites.");
    expect(await hostnameExists("borrowed.example")).toBe(false);
    const notMine = await stranger.post(`/app/orgs/perm-elsewhere/members/${viewerId}/remove`, {
      confirm: "yes",
    });
    expect(notMine.status).toBe(404);
    expect(await roleOf("perm-settings", org.members.viewer)).toBe("viewer");
  });

  test("at most 50 invitations an hour per organization, then 429 beside the address", async () => {
    const team = await orgWithMembers(h, "perm-invites", 0);
    const owner = await h.signedIn(team.members.owner);
    await owner.get("/app/orgs/perm-invites/members");
    for (let i = 0; i < INVITATIONS_PER_HOUR; i++) {
      const invited = await owner.post("/app/orgs/perm-invites/members", {
        email: unique(`invite-${i}`),
        role: "viewer",
      });
      expect(invited.status).toBe(303);
    }
    const over = unique("one-too-many");
    const refused = await owner.post("/app/orgs/perm-invites/members", {
      email: over,
      role: "viewer",
    });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('id="field-email-error"');
    expect(refused.text).toContain("invitations an hour");
    expect(await roleOf("perm-invites", over)).toBeNull();
    expect(await h.ses.to(over)).toEqual([]);
  }, 30_000);

  test("the last owner can be neither demoted nor removed (409), whoever asks", async () => {
    const lone = await orgWithMembers(h, "perm-lone", 0);
    const owner = await h.signedIn(lone.members.owner);
    const id = await personId(lone.members.owner);
    await owner.get("/app/orgs/perm-lone/members");
    const demoted = await owner.post(`/app/orgs/perm-lone/members/${id}/role`, { role: "admin" });
    expect(demoted.status).toBe(409);
    expect(demoted.text).toContain("This is the last owner: make someone else an owner first.");
    for (const fields of [{}, { confirm: "yes" }] as Record<string, string>[]) {
      const removed = await owner.post(`/app/orgs/perm-lone/members/${id}/remove`, fields);
      expect(removed.status).toBe(409);
    }
    expect(await roleOf("perm-lone", lone.members.owner)).toBe("owner");
  });

  test("a person who gives up managing members lands where they still may look", async () => {
    const team = await orgWithMembers(h, "perm-self", 0);
    const second = unique("second-owner");
    await h.admin("POST", "/orgs/perm-self/members", { email: second, role: "owner" });
    const owner = await h.signedIn(second);
    await owner.get("/app/orgs/perm-self/members");
    const demoted = await owner.post(`/app/orgs/perm-self/members/${await personId(second)}/role`, {
      role: "viewer",
    });
    expect(demoted.status).toBe(303);
    expect(demoted.headers.get("location")).toBe("/app/orgs/perm-self");
    const admin = await h.signedIn(team.members.admin);
    await admin.get("/app/orgs/perm-self/members");
    const id = await personId(team.members.admin);
    const left = await admin.post(`/app/orgs/perm-self/members/${id}/remove`, { confirm: "yes" });
    expect(left.status).toBe(303);
    expect(left.headers.get("location")).toBe("/app/");
    expect(await roleOf("perm-self", team.members.admin)).toBeNull();
  });

  test("the audit log names the person behind a decision and links to the story", async () => {
    const id = await storyInReview(h, "perm-settings", "audited-decision");
    await clients.approver.get(`/app/stories/${id}`);
    expect((await clients.approver.post(`/app/stories/${id}/approve`)).status).toBe(303);
    const log = await clients.admin.get(`${base}/audit`);
    const row = log.text.split("<tr>").find((part) => part.includes(`/app/stories/${id}`));
    expect(row).toContain(org.members.approver);
    expect(row).toContain("Story approved");
  });

  test("the audit log shows single sign-on events and who they came from", async () => {
    const orgId = (await h.admin("GET", "/orgs/perm-settings")).body.id as string;
    await audit(
      db(),
      orgId,
      "sso.sign_in_refused:domain_not_allowed",
      null,
      "sso:ann@elsewhere.example",
    );
    await audit(db(), orgId, "sso.enabled", null, "admin");
    const log = await clients.owner.get(`${base}/audit`);
    const rows = log.text.split("<tr>");
    const refused = rows.find((row) => row.includes("Single sign-on refused"));
    expect(refused).toContain("Single sign-on refused (domain_not_allowed)");
    expect(refused).toContain("ann@elsewhere.example (single sign-on)");
    const enabled = rows.find((row) => row.includes("Single sign-on turned on"));
    expect(enabled).toContain("<td>operator</td>");
  });

  test("the audit log pages by cursor: 50 events a page, newest first, none twice", async () => {
    await h.admin("POST", "/orgs", { slug: "perm-audit", name: "Audit org" });
    const owner = unique("audit-owner");
    await h.admin("POST", "/orgs/perm-audit/members", { email: owner, role: "owner" });
    for (let i = 0; i < 54; i++) {
      await h.admin("POST", "/orgs/perm-audit/members", { email: unique(`a${i}`), role: "viewer" });
    }
    const client = await h.signedIn(owner);
    const first = await client.get("/app/orgs/perm-audit/audit");
    const rowsOf = (text: string) => [...text.matchAll(/<tr>\s*<td><time/g)].length;
    expect(rowsOf(first.text)).toBe(50);
    const older = /href="(\/app\/orgs\/perm-audit\/audit\?before=[^"]+)">Older events/.exec(
      first.text,
    );
    expect(older).not.toBeNull();
    const second = await client.get(older![1]!);
    expect(rowsOf(second.text)).toBe(5);
    expect(second.text).not.toContain("Older events");
    expect(second.text).toContain(`Member added (owner)`);
    const subjects = (text: string) =>
      [...text.matchAll(/<td>([^<]+@example\.com)<\/td>/g)].map((m) => m[1]);
    const seen = [...subjects(first.text), ...subjects(second.text)];
    expect(new Set(seen).size).toBe(55);
    const stored = await db()
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.organizationId, (await h.admin("GET", "/orgs/perm-audit")).body.id));
    expect(stored.length).toBe(55);
    // A cursor that is not one shows the newest page.
    expect(rowsOf((await client.get("/app/orgs/perm-audit/audit?before=nonsense")).text)).toBe(50);
  });
});
