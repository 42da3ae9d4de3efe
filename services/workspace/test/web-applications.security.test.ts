import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { oauthGrants, workspacePeople } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { startSession } from "../src/identity/sessions/service.ts";
import { orgWithMembers, type WebClient, type WebHarness, webHarness } from "./support/web-app.ts";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/**
 * The person's applications page (/app/applications): a revocation needs the CSRF token and the
 * confirmation; a session single sign-on opened lists and revokes its own organization's grants
 * only (another organization's answers 404 and stays), and says how to see the others.
 */
describe("the applications a person allowed, in the web app", () => {
  let h: WebHarness;
  let person: WebClient;
  let email: string;
  const grants: Record<"home" | "other", string> = { home: "", other: "" };
  const db = () => h.runtime.database.db;
  const revokedAt = async (id: string) =>
    (await db().select().from(oauthGrants).where(eq(oauthGrants.id, id)))[0]!.revokedAt;

  /** The person allows a device-flow application of the organization; the grant's id. */
  async function allowed(org: string): Promise<string> {
    const client = await h.admin("POST", `/orgs/${org}/oauth_clients`, {
      name: `Tool of ${org}`,
      grant_types: [DEVICE_GRANT],
    });
    const clientId = client.body.client_id as string;
    const started = await fetch(`${h.url}/oauth/device_authorization`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: clientId, scope: "stories:approve" }),
    });
    const device = (await started.json()) as { device_code: string; user_code: string };
    await person.get(`/app/device?user_code=${device.user_code}`);
    await person.post("/app/device", { user_code: device.user_code, decision: "allow" });
    const tokens = await fetch(`${h.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: DEVICE_GRANT,
        device_code: device.device_code,
        client_id: clientId,
      }),
    });
    expect(tokens.status).toBe(200);
    const page = await person.get("/app/applications");
    const section = page.text.split("<section").find((part) => part.includes(`Tool of ${org}`))!;
    return /href="\/app\/applications\/([0-9a-f-]{36})\/revoke"/.exec(section)![1]!;
  }

  beforeAll(async () => {
    h = await webHarness();
    const home = await orgWithMembers(h, "apps-home", 0);
    await h.admin("POST", "/orgs", { slug: "apps-other", name: "Other newsroom" });
    email = home.members.approver;
    await h.admin("POST", "/orgs/apps-other/members", { email, role: "approver" });
    person = await h.signedIn(email);
    grants.home = await allowed("apps-home");
    grants.other = await allowed("apps-other");
  }, 120_000);
  afterAll(() => h?.close());

  test("both grants are listed, with their organization", async () => {
    const page = await person.get("/app/applications");
    expect(page.text).toContain("Tool of apps-home");
    expect(page.text).toContain("<dd>Other newsroom</dd>");
    expect(page.text).not.toContain("single sign-on");
  });

  test("a revocation without the CSRF token, or from another origin, is refused: 403, the grant stays", async () => {
    await person.get(`/app/applications/${grants.home}/revoke`);
    const path = `/app/applications/${grants.home}/revoke`;
    expect((await person.post(path, { confirm: "yes", _csrf: null })).status).toBe(403);
    const elsewhere = await person.post(
      path,
      { confirm: "yes" },
      { origin: "https://evil.example" },
    );
    expect(elsewhere.status).toBe(403);
    expect(await revokedAt(grants.home)).toBeNull();
  });

  test("a session single sign-on opened: its organization's grants only; another's is a 404 and stays", async () => {
    const [row] = await db().select().from(workspacePeople).where(eq(workspacePeople.email, email));
    const home = await h.admin("GET", "/orgs/apps-home");
    const { token } = await startSession(db(), row!.id, h.clock.now(), {
      ssoOrganizationId: home.body.id,
    });
    const sso = h.visitor();
    sso.cookies.set("nr_session", token);
    const page = await sso.get("/app/applications");
    expect(page.status).toBe(200);
    expect(page.text).toContain("Tool of apps-home");
    expect(page.text).not.toContain("Tool of apps-other");
    expect(page.text).toContain("Confirm with\nan emailed code");
    expect((await sso.get(`/app/applications/${grants.other}/revoke`)).status).toBe(404);
    await sso.get("/app/applications");
    const refused = await sso.post(`/app/applications/${grants.other}/revoke`, { confirm: "yes" });
    expect(refused.status).toBe(404);
    expect(await revokedAt(grants.other)).toBeNull();
    // Its own organization's grant it may revoke.
    await sso.get(`/app/applications/${grants.home}/revoke`);
    const revoked = await sso.post(`/app/applications/${grants.home}/revoke`, { confirm: "yes" });
    expect(revoked.status).toBe(303);
    expect(await revokedAt(grants.home)).not.toBeNull();
  });
});
