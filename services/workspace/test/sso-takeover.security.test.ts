import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import {
  auditEvents,
  organizationSso,
  ssoVerifiedDomains,
  workspaceSessions,
} from "@newsroom/shared/db/schema";
import { eq, like } from "drizzle-orm";
import { WorkspaceConfig } from "../src/config.ts";
import { findPersonByEmail } from "../src/identity/members/store.ts";
import { providerLinkOf, publishDomainRecord, type SsoHarness, ssoHarness } from "./support/sso.ts";
import { type Answer, storyInReview, unique, type WebClient } from "./support/web-app.ts";

/**
 * The ways single sign-on could hand one person's account to another: who sets a provider up,
 * whom a provider may vouch for, what its session reaches, which domains count, how a sign-in
 * starts, and where the stored client secret may go.
 */
let s: SsoHarness;
const ORG = "sso-bound";
const DOMAIN = "sso-bound.example";
const HOUSE = "armage";
const HOUSE_DOMAIN = "house-sso.example";

const db = () => s.h.runtime.database.db;
const at = (domain: string) => `${unique("p").split("@")[0]}@${domain}`;

beforeAll(async () => {
  s = await ssoHarness(ORG, DOMAIN);
  await s.h.admin("POST", "/orgs", { slug: HOUSE, name: "House" });
  await s.h.admin("POST", "/orgs", { slug: "sso-other", name: "Other Org" });
}, 60_000);
afterAll(() => s?.close());

/** A member of the organization with the role, added through the internal API. */
async function member(org: string, role: string, email = at(DOMAIN)) {
  const added = await s.h.admin("POST", `/orgs/${org}/members`, { email, role });
  expect(added.status).toBe(201);
  return email;
}

/** The whole single sign-on way in, for a browser of its own (or the one given). */
async function signInBySso(login: string, org = ORG, visitor: WebClient = s.h.visitor()) {
  const back = await s.provider.authorize(await s.start(visitor, org), login);
  const answer = await s.callback(visitor, back);
  return { visitor, answer };
}

async function sessionsOf(email: string) {
  const person = await findPersonByEmail(db(), email);
  if (!person) return [];
  return db().select().from(workspaceSessions).where(eq(workspaceSessions.personId, person.id));
}

const refusals = (reason: string) =>
  db()
    .select()
    .from(auditEvents)
    .where(like(auditEvents.action, `sso.sign_in_refused:${reason}`));

const houseOwner = async () => s.h.signedIn(await member(HOUSE, "owner", unique("house-owner")));

const freshPage = (returnTo: string) =>
  `/app/sign-in/fresh?return_to=${encodeURIComponent(returnTo)}`;

function expectNoSession(answer: Answer) {
  expect(answer.headers.getSetCookie().some((c) => /^nr_session=[^;]/.test(c))).toBe(false);
}

describe("who sets single sign-on up", () => {
  test("a house admin may neither open nor change any organization's settings, the house's included; a house owner may", async () => {
    const admin = await s.h.signedIn(await member(HOUSE, "admin", unique("house-admin")));
    for (const org of [ORG, HOUSE]) {
      expect((await admin.get(`/app/orgs/${org}/sso`)).status).toBe(403);
      const changed = await admin.post(`/app/orgs/${org}/sso`, {
        issuer: "https://attacker.example",
        client_id: "mine",
        client_secret: "mine",
        allowed_domains: DOMAIN,
        enabled: "yes",
      });
      expect(changed.status).toBe(403);
    }
    expect((await admin.get(`/app/orgs/${ORG}`)).text).not.toContain(`/app/orgs/${ORG}/sso"`);
    const [row] = await db().select().from(organizationSso);
    expect(row!.issuer).toBe(s.provider.issuer);

    // A house owner may.
    const owner = await houseOwner();
    const overview = await owner.get(`/app/orgs/${ORG}`);
    expect(overview.text).toContain(`<a href="/app/orgs/${ORG}/sso">Single sign-on</a>`);
    expect((await owner.get(`/app/orgs/${ORG}/sso`)).status).toBe(200);
  });
});

describe("whom a provider vouches for", () => {
  test("staff who are members of the organization are refused, audited, and told to use an emailed code", async () => {
    const email = await member(ORG, "editor");
    await member(HOUSE, "admin", email);
    const { answer } = await signInBySso(email);
    expect(answer.status).toBe(403);
    expect(answer.text).toContain("Sign in with an emailed code instead.");
    expectNoSession(answer);
    expect(await sessionsOf(email)).toHaveLength(0);
    expect((await refusals("other_memberships")).length).toBeGreaterThan(0);
  });

  test("a member of another organization too is refused", async () => {
    const email = await member(ORG, "viewer");
    await member("sso-other", "viewer", email);
    const { answer } = await signInBySso(email);
    expect(answer.status).toBe(403);
    expect(answer.text).toContain("also belongs to other organizations");
    expect(await sessionsOf(email)).toHaveLength(0);
  });

  test("the house organization's own provider signs in a house-only member, never the house owner through another organization", async () => {
    await s.h.admin("PUT", `/orgs/${HOUSE}/sso`, {
      issuer: s.provider.issuer,
      client_id: s.provider.clientId,
      client_secret: s.provider.clientSecret,
      allowed_domains: [HOUSE_DOMAIN],
      enabled: true,
    });
    await s.verifyDomain(HOUSE, HOUSE_DOMAIN);
    const houseOnly = await member(HOUSE, "editor", at(HOUSE_DOMAIN));
    const { answer, visitor } = await signInBySso(houseOnly, HOUSE);
    expect(answer.status).toBe(303);
    expect((await visitor.get(`/app/orgs/${HOUSE}`)).status).toBe(200);

    // The house owner at a client organization's domain: that provider cannot sign them in.
    const owner = await member(HOUSE, "owner", at(DOMAIN));
    await member(ORG, "owner", owner);
    const refused = await signInBySso(owner);
    expect(refused.answer.status).toBe(403);
    expect(await sessionsOf(owner)).toHaveLength(0);
  });
});

describe("what a single sign-on session reaches", () => {
  test("its organization only: another one, and staff-wide actions, need an emailed code, which lifts the limit", async () => {
    const email = await member(ORG, "approver");
    const { answer, visitor } = await signInBySso(email);
    expect(answer.status).toBe(303);
    const [session] = await sessionsOf(email);
    const org = await s.h.admin("GET", `/orgs/${ORG}/sso`);
    expect(session!.ssoOrganizationId).toBe(org.body.organization_id);
    expect((await visitor.get(`/app/orgs/${ORG}`)).status).toBe(200);

    // Added elsewhere afterwards, and made staff: the session still reaches its organization only.
    await member("sso-other", "approver", email);
    await member(HOUSE, "admin", email);
    const home = await visitor.get("/app/");
    expect(home.text).toContain(`/app/orgs/${ORG}"`);
    expect(home.text).not.toContain("/app/orgs/sso-other");
    expect(home.text).not.toContain('action="/app/orgs"');
    for (const path of ["/app/orgs/sso-other", "/app/orgs/sso-other/stories"]) {
      const other = await visitor.get(path);
      expect(other.status).toBe(303);
      expect(other.headers.get("location")).toBe(freshPage(path));
    }
    const id = await storyInReview(s.h, "sso-other", "bound-session");
    const approve = await visitor.post(`/app/stories/${id}/approve`);
    expect(approve.status).toBe(303);
    expect(approve.headers.get("location")!.startsWith("/app/sign-in/fresh?")).toBe(true);
    expect((await s.h.admin("GET", `/stories/${id}`)).body.status).toBe("review_required");
    const create = await visitor.post("/app/orgs", { name: "Bound", slug: "bound-made" });
    expect(create.status).toBe(303);
    expect(create.headers.get("location")!.startsWith("/app/sign-in/fresh?")).toBe(true);
    expect((await s.h.admin("GET", "/orgs/bound-made")).status).toBe(404);
    // Staff acting in the session's own organization count as staff-wide too.
    expect((await visitor.get(`/app/orgs/${ORG}`)).status).toBe(303);

    // The emailed code: the session becomes a normal one.
    const since = Date.now() - 1_000;
    await visitor.get(freshPage("/app/orgs/sso-other"));
    await visitor.post("/app/sign-in/fresh/send", { return_to: "/app/orgs/sso-other" });
    const code = await s.h.codeFor(email, since);
    await visitor.get(freshPage("/app/orgs/sso-other"));
    const confirmed = await visitor.post("/app/sign-in/fresh", {
      code,
      return_to: "/app/orgs/sso-other",
    });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("location")).toBe("/app/orgs/sso-other");
    expect((await visitor.get("/app/orgs/sso-other")).status).toBe(200);
    expect((await sessionsOf(email))[0]!.ssoOrganizationId).toBeNull();
  });
});

describe("which domains count", () => {
  test("DNS_RESOLVERS names the servers of the lookups: addresses with ports, checked at start", () => {
    const loaded = loadConfig(WorkspaceConfig, { DNS_RESOLVERS: "127.0.0.1:5353, [::1]:53" });
    expect(loaded.DNS_RESOLVERS).toBe("127.0.0.1:5353, [::1]:53");
    expect(() => loadConfig(WorkspaceConfig, { DNS_RESOLVERS: "dns.example.com;rm" })).toThrow(
      "DNS_RESOLVERS",
    );
    expect(loadConfig(WorkspaceConfig, {}).DNS_RESOLVERS).toBeUndefined();
  });

  test("a domain signs people in once its TXT record is found, for one organization only", async () => {
    const domain = "proved.example";
    await s.h.admin("POST", "/orgs", { slug: "sso-proof", name: "Proof Org" });
    await s.h.admin("PUT", "/orgs/sso-proof/sso", {
      issuer: s.provider.issuer,
      client_id: s.provider.clientId,
      client_secret: s.provider.clientSecret,
      allowed_domains: [domain, "kept.example"],
      enabled: true,
    });
    const email = await member("sso-proof", "editor", at(domain));

    // Pending: neither sign-in nor discovery by address counts it.
    const visitor = s.h.visitor();
    await visitor.get("/app/sign-in");
    const discovered = await visitor.post("/app/sso", { organization: email });
    expect(discovered.status).toBe(400);
    expect(discovered.text).toContain("No single sign-on is set up");
    const pending = await signInBySso(email, "sso-proof");
    expect(pending.answer.status).toBe(403);
    expect(pending.answer.text).toContain("is not verified");
    expect(await sessionsOf(email)).toHaveLength(0);
    expect((await refusals("domain_unverified")).length).toBeGreaterThan(0);

    // The settings page names the record; Verify finds nothing yet, then finds it.
    const owner = await houseOwner();
    const page = await owner.get("/app/orgs/sso-proof/sso");
    expect(page.text).toContain(`_newsroom-verify.${domain}`);
    const value = /newsroom-domain-verification=[A-Za-z0-9_-]+/.exec(page.text)![0];
    expect(page.text).toMatch(/<td>pending<\/td>/);
    const missing = await owner.post("/app/orgs/sso-proof/sso/domains/verify", { domain });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain("No TXT record");
    s.dns.records.set(`_newsroom-verify.${domain}`, ["v=spf1 -all", value]);
    const verified = await owner.post("/app/orgs/sso-proof/sso/domains/verify", { domain });
    expect(verified.status).toBe(303);
    expect((await owner.get("/app/orgs/sso-proof/sso")).text).toMatch(/<td>verified<\/td>/);
    const audited = await db()
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, `sso.domain_verified:${domain}`));
    expect(audited).toHaveLength(1);
    expect((await signInBySso(email, "sso-proof")).answer.status).toBe(303);

    // Another organization's record for the same domain does not take it over.
    await s.h.admin("PUT", "/orgs/sso-other/sso", {
      issuer: s.provider.issuer,
      client_id: s.provider.clientId,
      client_secret: s.provider.clientSecret,
      allowed_domains: [domain],
      enabled: true,
    });
    await publishDomainRecord(s.h, s.dns, "sso-other", domain);
    await owner.get("/app/orgs/sso-other/sso");
    const taken = await owner.post("/app/orgs/sso-other/sso/domains/verify", { domain });
    expect(taken.status).toBe(422);
    expect(taken.text).toContain("verified by another organization");
    expect(taken.text).toContain('<p class="error" id="domain-0-error">');
    const api = await s.h.admin("POST", `/orgs/sso-other/sso/domains/${domain}/verify`);
    expect(api.status).toBe(422);
    expect(api.body.error.fields[0].field).toBe("domain");

    // A changed list keeps the verification of the domains that stay, and drops the others'.
    await s.verifyDomain("sso-proof", "kept.example");
    await s.h.admin("PUT", "/orgs/sso-proof/sso", {
      issuer: s.provider.issuer,
      client_id: s.provider.clientId,
      allowed_domains: ["kept.example", "new.example"],
      enabled: true,
    });
    const rows = await db().select().from(ssoVerifiedDomains);
    const proofOrg = (await s.h.admin("GET", "/orgs/sso-proof/sso")).body.organization_id;
    expect(
      rows
        .filter((row) => row.organizationId === proofOrg)
        .map((row) => row.domain)
        .sort(),
    ).toEqual(["kept.example"]);
    expect(rows.some((row) => row.domain === domain)).toBe(false);
  });
});

describe("how a sign-in starts", () => {
  test("GET /start starts nothing: it shows a form; the form's post needs its CSRF token and this app's origin", async () => {
    const visitor = s.h.visitor();
    const got = await visitor.get(`/app/sso/${ORG}/start`);
    expect(got.status).toBe(200);
    expect(got.headers.get("location")).toBeNull();
    expect(visitor.cookies.has("nr_sso")).toBe(false);
    expect(got.text).toContain(`<form method="post" action="/app/sso/${ORG}/start">`);
    expect(providerLinkOf(got.text)).toBeNull();

    expect((await visitor.post(`/app/sso/${ORG}/start`, { _csrf: null })).status).toBe(403);
    const forged = await visitor.post(
      `/app/sso/${ORG}/start`,
      {},
      { origin: "https://evil.example" },
    );
    expect(forged.status).toBe(403);
    expect(visitor.cookies.has("nr_sso")).toBe(false);

    const started = await visitor.post(`/app/sso/${ORG}/start`);
    expect(started.status).toBe(200);
    expect(providerLinkOf(started.text)!.startsWith(`${s.provider.issuer}/`)).toBe(true);
    expect(visitor.cookies.has("nr_sso")).toBe(true);
  });

  test("a signed-in browser is never signed in again on top: the callback keeps its session", async () => {
    const victim = await member(ORG, "editor", unique("victim"));
    const browser = await s.h.signedIn(victim);
    const sessionCookie = browser.cookies.get("nr_session");
    const attacker = await member(ORG, "editor");

    // A sign-in started elsewhere (its cookie planted) comes back to the victim's browser.
    const elsewhere = s.h.visitor();
    const back = await s.provider.authorize(await s.start(elsewhere), attacker);
    browser.cookies.set("nr_sso", elsewhere.cookies.get("nr_sso")!);
    const answer = await s.callback(browser, back);
    expect(answer.status).toBe(409);
    expect(answer.text).toContain("sign out first");
    expectNoSession(answer);
    expect(browser.cookies.get("nr_session")).toBe(sessionCookie);
    expect((await browser.get("/app/")).text).toContain(victim);
    expect(await sessionsOf(attacker)).toHaveLength(0);
    expect(await sessionsOf(victim)).toHaveLength(1);

    // Nor does a signed-in browser start one.
    await browser.get(`/app/sso/${ORG}/start`);
    expect((await browser.post(`/app/sso/${ORG}/start`)).status).toBe(409);
    expect(browser.cookies.has("nr_sso")).toBe(false);
  });
});

describe("the stored client secret", () => {
  const base = () => ({
    issuer: s.provider.issuer,
    client_id: s.provider.clientId,
    client_secret: "first-secret",
    allowed_domains: ["secret.example"],
    enabled: false,
  });

  test("a new issuer or client id needs the secret again, in the internal API and the web form", async () => {
    await s.h.admin("POST", "/orgs", { slug: "sso-secret", name: "Secret Org" });
    expect((await s.h.admin("PUT", "/orgs/sso-secret/sso", base())).status).toBe(200);
    const keep = { ...base(), client_secret: undefined };
    expect((await s.h.admin("PUT", "/orgs/sso-secret/sso", keep)).status).toBe(200);
    for (const changed of [
      { ...keep, issuer: "https://captured.example" },
      { ...keep, client_id: "another-client" },
    ]) {
      const answer = await s.h.admin("PUT", "/orgs/sso-secret/sso", changed);
      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe("validation_failed");
      expect(answer.body.error.fields.map((f: { field: string }) => f.field)).toEqual([
        "client_secret",
      ]);
    }

    const owner = await houseOwner();
    await owner.get("/app/orgs/sso-secret/sso");
    const form = await owner.post("/app/orgs/sso-secret/sso", {
      issuer: "https://captured.example",
      client_id: s.provider.clientId,
      client_secret: "",
      allowed_domains: "secret.example",
    });
    expect(form.status).toBe(422);
    expect(form.text).toContain('id="field-client_secret-error"');
    const [row] = await db()
      .select()
      .from(organizationSso)
      .where(
        eq(
          organizationSso.organizationId,
          (await s.h.admin("GET", "/orgs/sso-secret/sso")).body.organization_id,
        ),
      );
    expect(row!.issuer).toBe(s.provider.issuer);
  });
});

describe("discovery by address", () => {
  test("an address never names its organization: SSO domains go straight on, others read like any miss", async () => {
    const email = await member(ORG, "viewer");
    const visitor = s.h.visitor();
    await visitor.get("/app/sign-in");
    const hit = await visitor.post("/app/sso", { organization: email });
    expect(hit.status).toBe(200);
    expect(hit.text).not.toContain(ORG);
    expect(providerLinkOf(hit.text)!.startsWith(`${s.provider.issuer}/`)).toBe(true);

    const texts: string[] = [];
    for (const organization of [at("nowhere.example"), "no-such-org"]) {
      const miss = s.h.visitor();
      await miss.get("/app/sign-in");
      const answer = await miss.post("/app/sso", { organization });
      expect(answer.status).toBe(400);
      texts.push(answer.text.replace(/value="[^"]*"/g, ""));
    }
    expect(new Set(texts).size).toBe(1);
  });
});
