import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  auditEvents,
  MEMBER_ROLES,
  type MemberRole,
  oauthClients,
  organizations,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { readmeTable } from "./support/permission-table.ts";
import { orgWithMembers, type WebClient, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * OAuth applications and the owners' switch in the web app: who may list, register and delete
 * applications and who may turn approvals through the API on (cases from docs/permissions.md's
 * "Workspace permissions" table, allowed or 403 with nothing changed), another organization's
 * applications (404), CSRF, the confirmation before a deletion and a switch, the redirect URI
 * rule beside its field, and the audit naming the person.
 */
const table = readmeTable();
const ORG = "oauth-org";
const BASE = `/app/orgs/${ORG}/oauth-clients`;

describe("OAuth applications in the web app", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  const clients = {} as Record<MemberRole, WebClient>;
  const db = () => h.runtime.database.db;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, ORG, 0);
    for (const role of MEMBER_ROLES) clients[role] = await h.signedIn(org.members[role]);
  }, 120_000);
  afterAll(() => h?.close());

  const clientsNamed = async (name: string) =>
    db().select().from(oauthClients).where(eq(oauthClients.name, name));
  const switchOf = async (slug = ORG) =>
    (
      await db()
        .select({ on: organizations.apiApprovalsEnabled })
        .from(organizations)
        .where(eq(organizations.slug, slug))
    )[0]!.on;
  /** An application registered by the operator, through the internal API. */
  const operatorClient = async (slug = ORG, name = "Operator's app") => {
    const made = await h.admin("POST", `/orgs/${slug}/oauth_clients`, {
      name,
      redirect_uris: ["https://app.example.com/callback"],
      grant_types: ["authorization_code"],
    });
    expect(made.status).toBe(201);
    return made.body.id as string;
  };
  const register = (client: WebClient, name: string, uris = "https://app.example.com/cb") =>
    client.post(BASE, { name, redirect_uris: uris, grant_types: "authorization_code" });

  for (const role of MEMBER_ROLES) {
    const allowed = table.get("oauth_client.manage")![role];
    test(`${role}: oauth_client.manage is ${allowed ? "allowed" : "403"}`, async () => {
      const client = clients[role];
      const page = await client.get(BASE);
      expect(page.status).toBe(allowed ? 200 : 403);
      if (!allowed) await client.get("/app/");
      const name = `App of the ${role}`;
      const posted = await register(client, name);
      expect(posted.status).toBe(allowed ? 303 : 403);
      expect((await clientsNamed(name)).length).toBe(allowed ? 1 : 0);
      const overview = await client.get(`/app/orgs/${ORG}`);
      expect(overview.text.includes("OAuth applications")).toBe(allowed);
      if (allowed) {
        expect(posted.headers.get("location")).toBe(`${BASE}?done=oauth-client-registered`);
        const list = await client.get(posted.headers.get("location")!);
        expect(list.text).toContain("The application was registered");
        expect(list.text).toContain(name);
        expect(list.text).toContain((await clientsNamed(name))[0]!.clientId);
        // Who registered it, by address.
        expect(list.text).toContain(`by ${org.members[role]}`);
      }
      const id = await operatorClient(ORG, `Kept from the ${role}`);
      const confirm = await client.get(`${BASE}/${id}/delete`);
      expect(confirm.status).toBe(allowed ? 200 : 403);
      if (!allowed) await client.get("/app/");
      const deleted = await client.post(`${BASE}/${id}/delete`, { confirm: "yes" });
      expect(deleted.status).toBe(allowed ? 303 : 403);
      expect((await clientsNamed(`Kept from the ${role}`)).length).toBe(allowed ? 0 : 1);
    });
  }

  for (const role of MEMBER_ROLES) {
    const allowed = table.get("api_approvals.switch")![role];
    test(`${role}: api_approvals.switch is ${allowed ? "allowed" : "403"}`, async () => {
      const client = clients[role];
      const overview = await client.get(`/app/orgs/${ORG}`);
      const sees = table.get("oauth_client.manage")![role];
      expect(overview.text.includes("Approvals through the API: <strong>off</strong>")).toBe(sees);
      expect(overview.text.includes('action="/app/orgs/oauth-org/api-approvals"')).toBe(allowed);
      if (sees && !allowed) expect(overview.text).toContain("Only an owner may change this.");
      const asked = await client.post(`/app/orgs/${ORG}/api-approvals`, { enabled: "true" });
      expect(asked.status).toBe(allowed ? 200 : 403);
      expect(await switchOf()).toBe(false);
      if (!allowed) {
        await client.get("/app/");
        const confirmed = await client.post(`/app/orgs/${ORG}/api-approvals`, {
          enabled: "true",
          confirm: "yes",
        });
        expect(confirmed.status).toBe(403);
        expect(await switchOf()).toBe(false);
        return;
      }
      expect(asked.text).toContain("Turn approvals through the API on?");
      const on = await client.post(`/app/orgs/${ORG}/api-approvals`, {
        enabled: "true",
        confirm: "yes",
      });
      expect(on.status).toBe(303);
      expect(on.headers.get("location")).toBe(`/app/orgs/${ORG}?done=api-approvals-on`);
      expect(await switchOf()).toBe(true);
      // The internal API reads the same setting.
      expect((await h.admin("GET", `/orgs/${ORG}`)).body.api_approvals_enabled).toBe(true);
      const shown = await client.get(on.headers.get("location")!);
      expect(shown.text).toContain("Approvals through the API: <strong>on</strong>");
      await client.post(`/app/orgs/${ORG}/api-approvals`, { enabled: "false" });
      const off = await client.post(`/app/orgs/${ORG}/api-approvals`, {
        enabled: "false",
        confirm: "yes",
      });
      expect(off.status).toBe(303);
      expect(await switchOf()).toBe(false);
      const [owner] = await db()
        .select()
        .from(workspacePeople)
        .where(eq(workspacePeople.email, org.members[role]));
      const actions = await db()
        .select({ action: auditEvents.action })
        .from(auditEvents)
        .where(eq(auditEvents.actor, `person:${owner!.id}`));
      const switched = actions.map((row) => row.action).filter((a) => a.startsWith("api_"));
      expect(switched).toEqual(["api_approvals.enabled", "api_approvals.disabled"]);
    });
  }

  test("a redirect URI is https, or http on the loopback address only: refused beside its field", async () => {
    const owner = clients.owner;
    await owner.get(BASE);
    const refused = await register(
      owner,
      "Plain http app",
      "https://ok.example.com/cb\nhttp://app.example.com/cb",
    );
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(
      /id="field-redirect_uris-error"[^>]*>Line 2: A redirect URI uses https \(http only on the loopback address\)\./,
    );
    expect(refused.text).toContain('aria-invalid="true"');
    // What was typed stays in the form.
    expect(refused.text).toContain("http://app.example.com/cb</textarea>");
    expect((await clientsNamed("Plain http app")).length).toBe(0);
    const loopback = await register(
      owner,
      "Loopback app",
      "http://127.0.0.1:8123/callback\r\nhttp://localhost:9000/cb",
    );
    expect(loopback.status).toBe(303);
    const [row] = await clientsNamed("Loopback app");
    expect(row!.redirectUris).toEqual([
      "http://127.0.0.1:8123/callback",
      "http://localhost:9000/cb",
    ]);
    const noGrant = await owner.post(BASE, { name: "No grant", redirect_uris: "" });
    expect(noGrant.status).toBe(422);
    expect(noGrant.text).toMatch(/id="grant_types-error"[^>]*>/);
    expect((await clientsNamed("No grant")).length).toBe(0);
  });

  test("deleting asks first: a post without the confirmation deletes nothing", async () => {
    const owner = clients.owner;
    const id = await operatorClient(ORG, "Asked first");
    const list = await owner.get(BASE);
    expect(list.text).toContain(`href="${BASE}/${id}/delete"`);
    const confirm = await owner.get(`${BASE}/${id}/delete`);
    expect(confirm.text).toContain("Delete the application Asked first?");
    expect(confirm.text).toContain("tokens stop working at once");
    const unconfirmed = await owner.post(`${BASE}/${id}/delete`);
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.get("location")).toBe(`${BASE}/${id}/delete`);
    expect((await clientsNamed("Asked first")).length).toBe(1);
    const done = await owner.post(`${BASE}/${id}/delete`, { confirm: "yes" });
    expect(done.headers.get("location")).toBe(`${BASE}?done=oauth-client-deleted`);
    expect((await clientsNamed("Asked first")).length).toBe(0);
    const audit = await owner.get(`/app/orgs/${ORG}/audit`);
    expect(audit.text).toContain("Application deleted (Asked first)");
  });

  test("without the CSRF token, or from another origin: 403, nothing registered, deleted or switched", async () => {
    const owner = clients.owner;
    const id = await operatorClient(ORG, "Not by CSRF");
    await owner.get(BASE);
    const forms = [
      [
        BASE,
        {
          name: "CSRF app",
          redirect_uris: "https://a.example.com/cb",
          grant_types: "authorization_code",
        },
      ],
      [`${BASE}/${id}/delete`, { confirm: "yes" }],
      [`/app/orgs/${ORG}/api-approvals`, { enabled: "true", confirm: "yes" }],
    ] as const;
    for (const [path, fields] of forms) {
      expect((await owner.post(path, { ...fields, _csrf: null })).status).toBe(403);
      expect((await owner.post(path, { ...fields, _csrf: "forged" })).status).toBe(403);
      const elsewhere = await owner.post(path, fields, { origin: "https://evil.example" });
      expect(elsewhere.status).toBe(403);
    }
    expect((await clientsNamed("CSRF app")).length).toBe(0);
    expect((await clientsNamed("Not by CSRF")).length).toBe(1);
    expect(await switchOf()).toBe(false);
  });

  test("another organization's owner: 404 for its applications and its switch; nothing changes", async () => {
    const other = await orgWithMembers(h, "oauth-other", 0);
    const stranger = await h.signedIn(other.members.owner);
    const id = await operatorClient(ORG, "Not theirs");
    const theirs = await operatorClient("oauth-other", "Theirs");
    expect((await stranger.get(BASE)).status).toBe(404);
    expect((await stranger.get(`${BASE}/${id}/delete`)).status).toBe(404);
    // Their own organization's path, naming the other organization's application.
    expect((await stranger.get(`/app/orgs/oauth-other/oauth-clients/${id}/delete`)).status).toBe(
      404,
    );
    await stranger.get("/app/orgs/oauth-other/oauth-clients");
    expect((await register(stranger, "Sneaked in")).status).toBe(404);
    expect((await stranger.post(`${BASE}/${id}/delete`, { confirm: "yes" })).status).toBe(404);
    const crossed = await stranger.post(`/app/orgs/oauth-other/oauth-clients/${id}/delete`, {
      confirm: "yes",
    });
    expect(crossed.status).toBe(404);
    const switched = await stranger.post(`/app/orgs/${ORG}/api-approvals`, {
      enabled: "true",
      confirm: "yes",
    });
    expect(switched.status).toBe(404);
    expect((await clientsNamed("Sneaked in")).length).toBe(0);
    expect((await clientsNamed("Not theirs")).length).toBe(1);
    expect(await switchOf()).toBe(false);
    // Their own list shows their application only.
    const own = await stranger.get("/app/orgs/oauth-other/oauth-clients");
    expect(own.text).toContain(`/oauth-clients/${theirs}/delete`);
    expect(own.text).not.toContain("Not theirs");
  });

  // Last: it moves the harness's clock.
  test("13 hours after the sign-in, registering, deleting and switching wait for a new code", async () => {
    const owner = clients.owner;
    const id = await operatorClient(ORG, "Kept while stale");
    // The clock moves on without letting the session lapse: it ends after 12 idle hours.
    for (let hours = 0; hours < 13; hours += 6.5) {
      h.clock.advance(6.5 * 3_600_000);
      expect((await owner.get(BASE)).status).toBe(200);
    }
    expect((await owner.get(BASE)).text).toContain("needs a sign-in code from the last 12 hours");
    const fresh = /^\/app\/sign-in\/fresh\?return_to=/;
    const registered = await register(owner, "Registered while stale");
    expect(registered.headers.get("location")).toMatch(fresh);
    const deleted = await owner.post(`${BASE}/${id}/delete`, { confirm: "yes" });
    expect(deleted.headers.get("location")).toMatch(fresh);
    await owner.get(`/app/orgs/${ORG}`);
    const switched = await owner.post(`/app/orgs/${ORG}/api-approvals`, {
      enabled: "true",
      confirm: "yes",
    });
    expect(switched.headers.get("location")).toMatch(fresh);
    expect((await clientsNamed("Registered while stale")).length).toBe(0);
    expect((await clientsNamed("Kept while stale")).length).toBe(1);
    expect(await switchOf()).toBe(false);
  });
});
