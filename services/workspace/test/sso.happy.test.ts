import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEvents, organizationSso, workspaceSessions } from "@newsroom/shared/db/schema";
import { and, eq } from "drizzle-orm";
import { findPersonByEmail } from "../src/identity/members/store.ts";
import { startOidcProvider } from "./support/oidc-provider.ts";
import { type SsoHarness, ssoHarness } from "./support/sso.ts";
import { unique } from "./support/web-app.ts";

/** Single sign-on through a real OpenID provider: the settings, and signing in. */
let s: SsoHarness;
const DOMAIN = "sso-client.example";
const member = () => `${unique("member").split("@")[0]}@${DOMAIN}`;

beforeAll(async () => {
  s = await ssoHarness("sso-happy", DOMAIN);
}, 60_000);
afterAll(() => s?.close());

const db = () => s.h.runtime.database.db;

async function actionsOf(slug: string): Promise<string[]> {
  const org = await s.h.admin("GET", `/orgs/${slug}/sso`);
  const rows = await db()
    .select({ action: auditEvents.action })
    .from(auditEvents)
    .where(eq(auditEvents.organizationId, org.body.organization_id));
  return rows.map((row) => row.action);
}

describe("signing in", () => {
  test("a member signs in with the organization's provider: a fresh session that shows the organization", async () => {
    const email = member();
    await s.h.admin("POST", "/orgs/sso-happy/members", { email, role: "editor" });
    const visitor = s.h.visitor();
    const authorization = await s.start(visitor);
    expect(authorization.startsWith(`${s.provider.issuer}/`)).toBe(true);
    const sent = new URL(authorization).searchParams;
    expect(sent.get("code_challenge_method")).toBe("S256");
    expect(sent.get("nonce")).toBeTruthy();
    expect(sent.get("state")).toBeTruthy();
    expect(sent.get("redirect_uri")).toBe(`${s.h.url}/app/sso/callback`);

    const before = Date.now();
    const answer = await s.callback(visitor, await s.provider.authorize(authorization, email));
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/app/");
    const cookies = answer.headers.getSetCookie();
    expect(cookies.some((c) => /^nr_session=[A-Za-z0-9_-]{43}; Path=\/app; HttpOnly/.test(c))).toBe(
      true,
    );
    expect(cookies.some((c) => c.startsWith("nr_sso=;") && c.includes("Max-Age=0"))).toBe(true);

    const home = await visitor.get("/app/");
    expect(home.status).toBe(200);
    expect(home.text).toContain("Org sso-happy");
    expect(home.text).toContain(email);

    const person = (await findPersonByEmail(db(), email))!;
    const [session] = await db()
      .select()
      .from(workspaceSessions)
      .where(eq(workspaceSessions.personId, person.id));
    expect(session!.freshAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(session!.freshAt.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    const signIns = await db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "sso.signed_in"), eq(auditEvents.subjectId, person.id)));
    expect(signIns).toHaveLength(1);
  });

  test("the work email names the organization: its domain leads to the provider", async () => {
    const email = member();
    await s.h.admin("POST", "/orgs/sso-happy/members", { email, role: "viewer" });
    const visitor = s.h.visitor();
    const authorization = await s.start(visitor, email);
    const answer = await s.callback(visitor, await s.provider.authorize(authorization, email));
    expect(answer.status).toBe(303);
    expect((await visitor.get("/app/")).text).toContain("Org sso-happy");
  });

  test("a provider that gives the email only at its UserInfo endpoint signs the member in too", async () => {
    const conforming = await startOidcProvider(`${s.h.url}/app/sso/callback`, {
      emailInIdToken: false,
    });
    try {
      await s.h.admin("POST", "/orgs", { slug: "sso-userinfo", name: "Org sso-userinfo" });
      // A domain signs people in for one organization only: this one has its own.
      const domain = "sso-userinfo.example";
      await s.h.admin("PUT", "/orgs/sso-userinfo/sso", {
        issuer: conforming.issuer,
        client_id: conforming.clientId,
        client_secret: conforming.clientSecret,
        allowed_domains: [domain],
        enabled: true,
      });
      await s.verifyDomain("sso-userinfo", domain);
      const email = `${unique("member").split("@")[0]}@${domain}`;
      await s.h.admin("POST", "/orgs/sso-userinfo/members", { email, role: "viewer" });
      const visitor = s.h.visitor();
      const authorization = await s.start(visitor, "sso-userinfo");
      const answer = await s.callback(visitor, await conforming.authorize(authorization, email));
      expect(answer.status).toBe(303);
      expect((await visitor.get("/app/")).text).toContain("Org sso-userinfo");
    } finally {
      await conforming.close();
    }
  });
});

describe("settings", () => {
  test("house owners set up single sign-on on the organization's page; the secret is sealed and shown only by its last four", async () => {
    await s.h.admin("POST", "/orgs", { slug: "armage", name: "House" });
    const staffEmail = unique("staff");
    await s.h.admin("POST", "/orgs/armage/members", { email: staffEmail, role: "owner" });
    await s.h.admin("POST", "/orgs", { slug: "sso-settings", name: "Settings Org" });
    const staff = await s.h.signedIn(staffEmail);

    const overview = await staff.get("/app/orgs/sso-settings");
    expect(overview.text).toContain('<a href="/app/orgs/sso-settings/sso">Single sign-on</a>');
    const empty = await staff.get("/app/orgs/sso-settings/sso");
    expect(empty.text).toContain('href="/app/orgs/sso-settings/sso" aria-current="page"');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain("not set up");

    const secret = "very-secret-client-value-1234";
    const saved = await staff.post("/app/orgs/sso-settings/sso", {
      issuer: s.provider.issuer,
      client_id: "settings-client",
      client_secret: secret,
      allowed_domains: "Example.com, news.example.org",
      enabled: "yes",
    });
    expect(saved.status).toBe(303);
    const page = await staff.get("/app/orgs/sso-settings/sso");
    expect(page.text).toContain("enabled");
    expect(page.text).toContain("example.com, news.example.org");
    expect(page.text).toContain("1234");
    expect(page.text).not.toContain(secret);

    const [row] = await db()
      .select()
      .from(organizationSso)
      .where(eq(organizationSso.clientId, "settings-client"));
    expect(row!.clientSecretHint).toBe("1234");
    expect(row!.clientSecretCiphertext).not.toContain(secret);
    expect(Buffer.from(row!.clientSecretCiphertext, "base64").toString("latin1")).not.toContain(
      secret,
    );
    expect(row!.allowedDomains).toEqual(["example.com", "news.example.org"]);

    // An empty secret keeps the stored one; turning it off is audited too.
    const off = await staff.post("/app/orgs/sso-settings/sso", {
      issuer: s.provider.issuer,
      client_id: "settings-client",
      client_secret: "",
      allowed_domains: "example.com",
    });
    expect(off.status).toBe(303);
    const [after] = await db()
      .select()
      .from(organizationSso)
      .where(eq(organizationSso.clientId, "settings-client"));
    expect(after!.clientSecretCiphertext).toBe(row!.clientSecretCiphertext);
    expect(after!.enabled).toBe(false);
    expect(await actionsOf("sso-settings")).toEqual([
      "sso.configured",
      "sso.enabled",
      "sso.updated",
      "sso.disabled",
    ]);
  });

  test("the internal API stores the secret sealed and answers only its last four", async () => {
    const secret = "api-secret-value-abcd";
    await s.h.admin("POST", "/orgs", { slug: "sso-api", name: "API Org" });
    const put = await s.h.admin("PUT", "/orgs/sso-api/sso", {
      issuer: "https://login.example.com",
      client_id: "api-client",
      client_secret: secret,
      allowed_domains: ["Example.COM"],
      enabled: true,
    });
    expect(put.status).toBe(200);
    expect(put.body.client_secret_last4).toBe("abcd");
    expect(put.body.allowed_domains).toEqual(["example.com"]);
    expect(JSON.stringify(put.body)).not.toContain(secret);
    const [row] = await db()
      .select()
      .from(organizationSso)
      .where(eq(organizationSso.organizationId, put.body.organization_id));
    expect(row!.clientSecretCiphertext).not.toContain(secret);
    expect(await actionsOf("sso-api")).toEqual(["sso.configured", "sso.enabled"]);
  });
});
