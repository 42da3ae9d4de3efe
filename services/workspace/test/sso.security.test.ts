import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEvents, workspaceSessions, workspaceSsoAttempts } from "@newsroom/shared/db/schema";
import { eq, like } from "drizzle-orm";
import { findPersonByEmail } from "../src/identity/members/store.ts";
import { hashAttemptToken, SSO_REQUESTS_PER_CLIENT } from "../src/identity/sso/service.ts";
import { providerLinkOf, type SsoHarness, ssoHarness } from "./support/sso.ts";
import { type Answer, unique, type WebClient } from "./support/web-app.ts";

/**
 * Single sign-on refusals: each a page with its status and no session. The provider is real;
 * what goes wrong is the browser's state, the ID token's nonce, or the address it proves.
 */
let s: SsoHarness;
const DOMAIN = "sso-guarded.example";
const member = async () => {
  const email = `${unique("member").split("@")[0]}@${DOMAIN}`;
  await s.h.admin("POST", "/orgs/sso-guarded/members", { email, role: "editor" });
  return email;
};

beforeAll(async () => {
  s = await ssoHarness("sso-guarded", DOMAIN);
}, 60_000);
afterAll(() => s?.close());

const db = () => s.h.runtime.database.db;

async function sessionsOf(email: string) {
  const person = await findPersonByEmail(db(), email);
  if (!person) return [];
  return db().select().from(workspaceSessions).where(eq(workspaceSessions.personId, person.id));
}

/** The continue page's form (GET start), posted: how a sign-in starts by an organization's slug. */
async function postStart(visitor: WebClient, slug: string): Promise<Answer> {
  await visitor.get(`/app/sso/${slug}/start`);
  return visitor.post(`/app/sso/${slug}/start`);
}

function expectRefused(answer: Answer, status: number, message: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toContain("text/html");
  expect(answer.text).toContain(message);
  expect(answer.headers.getSetCookie().some((c) => /^nr_session=[^;]/.test(c))).toBe(false);
}

async function refusalsOf(reason: string) {
  return db()
    .select()
    .from(auditEvents)
    .where(like(auditEvents.action, `sso.sign_in_refused:${reason}`));
}

describe("the browser's state", () => {
  test("a callback whose state is not the one this browser started with is refused (400)", async () => {
    const email = await member();
    const visitor = s.h.visitor();
    const back = await s.provider.authorize(await s.start(visitor), email);
    back.searchParams.set("state", `${back.searchParams.get("state")}x`);
    expectRefused(await s.callback(visitor, back), 400, "wrong state");
    expect(await sessionsOf(email)).toHaveLength(0);
    expect((await refusalsOf("state_mismatch")).length).toBeGreaterThan(0);
  });

  test("a replayed callback (the same answer and cookie again) is refused (400)", async () => {
    const email = await member();
    const visitor = s.h.visitor();
    const authorization = await s.start(visitor);
    const attemptCookie = visitor.cookies.get("nr_sso")!;
    const back = await s.provider.authorize(authorization, email);
    expect((await s.callback(visitor, back)).status).toBe(303);

    const replay = s.h.visitor();
    replay.cookies.set("nr_sso", attemptCookie);
    expectRefused(await s.callback(replay, back), 400, "already used");
    expect(await sessionsOf(email)).toHaveLength(1);
  });

  test("a callback in a browser that never started the sign-in is refused (400)", async () => {
    const email = await member();
    const back = await s.provider.authorize(await s.start(s.h.visitor()), email);
    expectRefused(await s.callback(s.h.visitor(), back), 400, "another browser");
    expect(await sessionsOf(email)).toHaveLength(0);
  });
});

describe("the ID token", () => {
  test("an ID token whose nonce is not this sign-in's is refused (400)", async () => {
    const email = await member();
    const visitor = s.h.visitor();
    const authorization = await s.start(visitor);
    // The provider puts the nonce it was sent into the ID token; the sign-in now expects another.
    await db()
      .update(workspaceSsoAttempts)
      .set({ nonce: "a-different-nonce-than-the-provider-saw" })
      .where(eq(workspaceSsoAttempts.tokenHash, hashAttemptToken(visitor.cookies.get("nr_sso")!)));
    const back = await s.provider.authorize(authorization, email);
    expectRefused(await s.callback(visitor, back), 400, "wrong nonce");
    expect(await sessionsOf(email)).toHaveLength(0);
    expect((await refusalsOf("nonce_mismatch")).length).toBeGreaterThan(0);
  });
});

describe("the address the provider proves", () => {
  async function signInAs(login: string, visitor: WebClient = s.h.visitor()) {
    const back = await s.provider.authorize(await s.start(visitor), login);
    return s.callback(visitor, back);
  }

  test("an address outside the organization's allowed domains is refused (403)", async () => {
    const email = unique("outsider"); // @example.com
    await s.h.admin("POST", "/orgs/sso-guarded/members", { email, role: "editor" });
    expectRefused(await signInAs(email), 403, "outside the email domains allowed");
    expect(await sessionsOf(email)).toHaveLength(0);
    expect((await refusalsOf("domain_not_allowed")).length).toBeGreaterThan(0);
  });

  test("an address the provider has not verified is refused (403), as is one without email_verified", async () => {
    const unverified = await member();
    s.provider.accounts.set(unverified, { email_verified: false });
    expectRefused(await signInAs(unverified), 403, "has not verified");
    const silent = await member();
    s.provider.accounts.set(silent, { email_verified: undefined });
    expectRefused(await signInAs(silent), 403, "has not verified");
    expect(await sessionsOf(unverified)).toHaveLength(0);
    expect(await sessionsOf(silent)).toHaveLength(0);
  });

  test("a person of the allowed domain who is not a member is refused (403) and not added", async () => {
    const stranger = `${unique("stranger").split("@")[0]}@${DOMAIN}`;
    expectRefused(await signInAs(stranger), 403, "is not a member of Org sso-guarded");
    expect(await findPersonByEmail(db(), stranger)).toBeNull();
  });
});

describe("organizations without single sign-on", () => {
  test("starting one for an organization without it, or that does not exist, is a 404", async () => {
    await s.h.admin("POST", "/orgs", { slug: "sso-none", name: "No SSO" });
    for (const slug of ["sso-none", "no-such-org"]) {
      const answer = await postStart(s.h.visitor(), slug);
      expectRefused(answer, 404, "not set up for this organization");
      expect(answer.headers.get("location")).toBeNull();
    }
  });

  test("a disabled configuration is a 404 too", async () => {
    await s.h.admin("POST", "/orgs", { slug: "sso-off", name: "Off" });
    await s.h.admin("PUT", "/orgs/sso-off/sso", {
      issuer: s.provider.issuer,
      client_id: s.provider.clientId,
      client_secret: s.provider.clientSecret,
      allowed_domains: ["off.example"],
      enabled: false,
    });
    expectRefused(await postStart(s.h.visitor(), "sso-off"), 404, "not set up");
  });

  test("the sign-in form answers the same for an unknown organization, one without SSO, and an unknown domain", async () => {
    const texts: string[] = [];
    for (const organization of ["no-such-org", "sso-none", "someone@unknown-domain.example"]) {
      const visitor = s.h.visitor();
      await visitor.get("/app/sign-in");
      const answer = await visitor.post("/app/sso", { organization });
      expect(answer.status).toBe(400);
      texts.push(answer.text.replace(/value="[^"]*"/g, ""));
    }
    expect(texts[0]).toContain("No single sign-on is set up");
    expect(new Set(texts).size).toBe(1);
  });

  test("the sign-in form needs its CSRF token", async () => {
    const visitor = s.h.visitor();
    await visitor.get("/app/sign-in");
    expect(
      (await visitor.post("/app/sso", { organization: "sso-guarded", _csrf: null })).status,
    ).toBe(403);
  });
});

describe("throttle", () => {
  test("one client address gets SSO_REQUESTS_PER_CLIENT starts and callbacks in ten minutes, then 429", async () => {
    const visitor = s.h.visitor();
    const sentOn = (answer: Answer) => providerLinkOf(answer.text) !== null;
    for (let i = 0; i < SSO_REQUESTS_PER_CLIENT; i++) {
      expect(sentOn(await postStart(visitor, "sso-guarded"))).toBe(true);
    }
    const answer = await postStart(visitor, "sso-guarded");
    expectRefused(answer, 429, "Too many single sign-on attempts");
    expect(sentOn(answer)).toBe(false);
    expect(sentOn(await postStart(s.h.visitor(), "sso-guarded"))).toBe(true);
  });
});

describe("settings", () => {
  test("only house owners open an organization's single sign-on settings: an owner gets 403, an outsider 404", async () => {
    const owner = unique("owner");
    await s.h.admin("POST", "/orgs/sso-guarded/members", { email: owner, role: "owner" });
    const ownerClient = await s.h.signedIn(owner);
    expect((await ownerClient.get("/app/orgs/sso-guarded")).text).not.toContain(
      '/sso-guarded/sso"',
    );
    expect((await ownerClient.get("/app/orgs/sso-guarded/sso")).status).toBe(403);
    expect(
      (await ownerClient.post("/app/orgs/sso-guarded/sso", { issuer: "https://x.example" })).status,
    ).toBe(403);
    const outsider = unique("outsider");
    await s.h.admin("POST", "/orgs/sso-none/members", { email: outsider, role: "owner" });
    expect((await (await s.h.signedIn(outsider)).get("/app/orgs/sso-guarded/sso")).status).toBe(
      404,
    );
  });

  test("saving the settings needs a sign-in from the last 12 hours, as keys do", async () => {
    await s.h.admin("POST", "/orgs", { slug: "armage", name: "House" });
    const staffEmail = unique("staff");
    await s.h.admin("POST", "/orgs/armage/members", { email: staffEmail, role: "owner" });
    const staff = await s.h.signedIn(staffEmail);
    await staff.get("/app/orgs/sso-none/sso");
    const person = (await findPersonByEmail(db(), staffEmail))!;
    await db()
      .update(workspaceSessions)
      .set({ freshAt: new Date(Date.now() - 13 * 3_600_000) })
      .where(eq(workspaceSessions.personId, person.id));
    const answer = await staff.post("/app/orgs/sso-none/sso", {
      issuer: s.provider.issuer,
      client_id: "stale-client",
      client_secret: "stale-secret",
      allowed_domains: "stale.example",
      enabled: "yes",
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(
      `/app/sign-in/fresh?return_to=${encodeURIComponent("/app/orgs/sso-none/sso")}`,
    );
    expect((await s.h.admin("GET", "/orgs/sso-none/sso")).status).toBe(404);
  });

  test("an issuer over plain http off this machine, or a wrong domain, is refused (422)", async () => {
    const answer = await s.h.admin("PUT", "/orgs/sso-none/sso", {
      issuer: "http://login.example.com",
      client_id: "c",
      client_secret: "s",
      allowed_domains: ["not a domain"],
      enabled: true,
    });
    expect(answer.status).toBe(422);
    const fields = answer.body.error.fields.map((f: { field: string }) => f.field);
    expect(fields).toEqual(["issuer", "allowed_domains"]);
  });
});
