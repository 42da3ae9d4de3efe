import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import {
  oauthDeviceAuthorizations,
  oauthTokens,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { startSession } from "../src/identity/sessions/service.ts";
import { sweepOAuth } from "../src/oauth/sweep.ts";
import {
  orgWithMembers,
  randomIp,
  storyInReview,
  type WebClient,
  type WebHarness,
  webHarness,
} from "./support/web-app.ts";

/**
 * The authorization server's guarantees: PKCE (S256) and the exact redirect URI on the code
 * grant, single-use codes, refresh tokens that rotate and whose reuse revokes the family,
 * revocation (RFC 7009), and the consent page's refusals.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them
type Json = any;

const REDIRECT = "https://app.example.com/callback";

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

describe("OAuth: the code grant with PKCE, refresh tokens and revocation", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let clientId: string;
  let approver: WebClient;

  async function token(fields: Record<string, string>) {
    const response = await fetch(`${h.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Json,
    };
  }

  async function revoke(fields: Record<string, string>) {
    const response = await fetch(`${h.url}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    });
    return response.status;
  }

  async function approve(storyId: string, bearer: string) {
    const response = await fetch(`${h.url}/v1/stories/${storyId}/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}` },
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  function authorizeQuery(challenge: string, extra: Record<string, string> = {}) {
    return new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope: "stories:approve",
      state: "xyz-state",
      ...extra,
    });
  }

  /** The consent page, then Allow: the code from the redirect back to the application. */
  async function codeFor(person: WebClient, challenge: string): Promise<string> {
    const query = authorizeQuery(challenge);
    const page = await person.get(`/app/oauth/authorize?${query}`);
    expect(page.status).toBe(200);
    const allowed = await person.post("/app/oauth/authorize", {
      ...Object.fromEntries(query),
      organization: org.storyIds.length ? await organizationId() : "",
      decision: "allow",
    });
    expect(allowed.status).toBe(303);
    const location = new URL(allowed.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get("state")).toBe("xyz-state");
    return location.searchParams.get("code")!;
  }

  let orgId: string | undefined;
  async function organizationId(): Promise<string> {
    orgId ??= (await h.admin("GET", `/orgs/${org.slug}`)).body.id as string;
    return orgId!;
  }

  async function tokensFor(person: WebClient) {
    const { verifier, challenge } = pkce();
    const code = await codeFor(person, challenge);
    const answer = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(answer.status).toBe(200);
    return answer.body;
  }

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "oauth-code", 1);
    const registered = await h.admin("POST", `/orgs/${org.slug}/oauth_clients`, {
      name: "Review board",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code"],
    });
    expect(registered.status).toBe(201);
    expect(registered.body.client_id).toStartWith("armc_");
    clientId = registered.body.client_id;
    await h.admin("PATCH", `/orgs/${org.slug}`, { api_approvals_enabled: true });
    approver = await h.signedIn(org.members.approver);
  }, 90_000);
  afterAll(() => h?.close());

  test("the consent page names the application, the organization and the scope in words", async () => {
    const page = await approver.get(`/app/oauth/authorize?${authorizeQuery(pkce().challenge)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Review board");
    expect(page.text).toContain(`Org ${org.slug}`);
    expect(page.text).toContain("approve and reject stories");
    expect(page.text).toContain('value="allow"');
    expect(page.text).toContain('value="deny"');
    // Its form may lead on to the application's origin, and nowhere else.
    expect(page.headers.get("content-security-policy")).toContain(
      "form-action 'self' https://app.example.com",
    );
  });

  test("a signed-out visitor signs in first and comes back to the consent page", async () => {
    const visitor = h.visitor();
    const target = `/app/oauth/authorize?${authorizeQuery(pkce().challenge)}`;
    const page = await visitor.get(target);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/app/sign-in");
    await visitor.get("/app/sign-in");
    const email = org.members.owner;
    const code = await h.nextCodeFor(email, () => visitor.post("/app/sign-in", { email }));
    await visitor.get("/app/sign-in/code");
    const signedIn = await visitor.post("/app/sign-in/code", { email, code });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(target);
    const consent = await visitor.get(target);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain("Review board");
  }, 60_000);

  test("a return address outside the app is never followed after sign-in", async () => {
    const visitor = h.visitor();
    visitor.cookies.set("nr_after_sign_in", encodeURIComponent("https://evil.example/x"));
    await visitor.get("/app/sign-in");
    const email = org.members.viewer;
    const code = await h.nextCodeFor(email, () => visitor.post("/app/sign-in", { email }));
    await visitor.get("/app/sign-in/code");
    const signedIn = await visitor.post("/app/sign-in/code", { email, code });
    expect(signedIn.headers.get("location")).toBe("/app/");
  }, 60_000);

  test("the code grant with the right verifier gives tokens that approve", async () => {
    const tokens = await tokensFor(approver);
    expect(tokens.access_token).toStartWith("armo_");
    expect(tokens.refresh_token).toStartWith("armr_");
    const approved = await approve(org.storyIds[0]!, tokens.access_token);
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe("approved");
  }, 60_000);

  test("a wrong PKCE verifier is invalid_grant", async () => {
    const { challenge } = pkce();
    const code = await codeFor(approver, challenge);
    const answer = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: pkce().verifier,
      client_id: clientId,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_grant");
    expect(answer.headers.get("cache-control")).toContain("no-store");
  });

  test("a redirect_uri other than the code's is invalid_grant", async () => {
    const { verifier, challenge } = pkce();
    const code = await codeFor(approver, challenge);
    const answer = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: "https://app.example.com/callback/",
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(answer.body.error).toBe("invalid_grant");
  });

  test("an unregistered redirect_uri is an error page, never a redirect", async () => {
    const query = authorizeQuery(pkce().challenge, { redirect_uri: "https://evil.example/cb" });
    const page = await approver.get(`/app/oauth/authorize?${query}`);
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
    expect(page.text).toContain("redirect_uri");
    const unknown = await approver.get(
      `/app/oauth/authorize?${authorizeQuery(pkce().challenge, { client_id: "armc_nope" })}`,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("location")).toBeNull();
  });

  test("without PKCE, or with plain, the error goes back to the application", async () => {
    const cases: Record<string, string>[] = [
      { code_challenge: "" },
      { code_challenge_method: "plain" },
    ];
    for (const extra of cases) {
      const page = await approver.get(
        `/app/oauth/authorize?${authorizeQuery(pkce().challenge, extra)}`,
      );
      expect(page.status).toBe(303);
      const location = new URL(page.headers.get("location")!);
      expect(location.searchParams.get("error")).toBe("invalid_request");
      expect(location.searchParams.get("state")).toBe("xyz-state");
    }
  });

  test("Deny goes back with access_denied; the consent form needs its CSRF token", async () => {
    const query = authorizeQuery(pkce().challenge);
    await approver.get(`/app/oauth/authorize?${query}`);
    const forged = await approver.post(
      "/app/oauth/authorize",
      { ...Object.fromEntries(query), decision: "allow" },
      { origin: "https://evil.example" },
    );
    expect(forged.status).toBe(403);
    const denied = await approver.post("/app/oauth/authorize", {
      ...Object.fromEntries(query),
      decision: "deny",
    });
    expect(denied.status).toBe(303);
    expect(new URL(denied.headers.get("location")!).searchParams.get("error")).toBe(
      "access_denied",
    );
  });

  test("an editor cannot allow: no Allow button, and a forged Allow is refused", async () => {
    const editor = await h.signedIn(org.members.editor);
    const query = authorizeQuery(pkce().challenge);
    const page = await editor.get(`/app/oauth/authorize?${query}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('value="allow"');
    const forged = await editor.post("/app/oauth/authorize", {
      ...Object.fromEntries(query),
      organization: await organizationId(),
      decision: "allow",
    });
    expect(forged.status).toBe(403);
  }, 60_000);

  test("a code used twice is refused, and the tokens of its first use are revoked", async () => {
    const { verifier, challenge } = pkce();
    const code = await codeFor(approver, challenge);
    const exchange = () =>
      token({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
      });
    const first = await exchange();
    expect(first.status).toBe(200);
    const second = await exchange();
    expect(second.body.error).toBe("invalid_grant");
    const storyId = await storyInReview(h, org.slug, "code-reuse");
    expect((await approve(storyId, first.body.access_token)).status).toBe(401);
  });

  test("refresh tokens rotate; a reused one revokes the whole family", async () => {
    const tokens = await tokensFor(approver);
    const refresh = (refreshToken: string) =>
      token({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
    const rotated = await refresh(tokens.refresh_token);
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(rotated.body.access_token).toStartWith("armo_");
    const storyId = await storyInReview(h, org.slug, "refresh-reuse");

    // The first refresh token again: refused, and every token of the family with it.
    const reused = await refresh(tokens.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    expect((await refresh(rotated.body.refresh_token)).body.error).toBe("invalid_grant");
    expect((await approve(storyId, rotated.body.access_token)).status).toBe(401);
    expect((await approve(storyId, tokens.access_token)).status).toBe(401);
    expect((await h.admin("GET", `/stories/${storyId}`)).body.status).toBe("review_required");
  }, 60_000);

  test("an access token expires after an hour", async () => {
    const tokens = await tokensFor(approver);
    const storyId = await storyInReview(h, org.slug, "expired-token");
    h.clock.advance(3_601_000);
    expect((await approve(storyId, tokens.access_token)).status).toBe(401);
  }, 60_000);

  test("revocation: unknown tokens answer 200; a revoked refresh token ends its family", async () => {
    expect(await revoke({ token: "armr_unknown", client_id: clientId })).toBe(200);
    const tokens = await tokensFor(approver);
    const storyId = await storyInReview(h, org.slug, "revoked");
    // Another application cannot revoke it.
    const other = await h.admin("POST", `/orgs/${org.slug}/oauth_clients`, {
      name: "Other",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code"],
    });
    expect(await revoke({ token: tokens.refresh_token, client_id: other.body.client_id })).toBe(
      200,
    );
    expect(
      (
        await token({
          grant_type: "refresh_token",
          refresh_token: tokens.refresh_token,
          client_id: clientId,
        })
      ).status,
    ).toBe(200);
    const fresh = await tokensFor(approver);
    expect(await revoke({ token: fresh.refresh_token, client_id: clientId })).toBe(200);
    expect((await approve(storyId, fresh.access_token)).status).toBe(401);
    // An access token revoked alone.
    const single = await tokensFor(approver);
    expect(await revoke({ token: single.access_token, client_id: clientId })).toBe(200);
    expect((await approve(storyId, single.access_token)).status).toBe(401);
  }, 60_000);

  test("the token endpoint's errors follow RFC 6749", async () => {
    const unsupported = await token({ grant_type: "password", client_id: clientId });
    expect(unsupported.body.error).toBe("unsupported_grant_type");
    const unknownClient = await token({
      grant_type: "refresh_token",
      refresh_token: "armr_x",
      client_id: "armc_unknown",
    });
    expect(unknownClient.status).toBe(401);
    expect(unknownClient.body.error).toBe("invalid_client");
    const device = await token({
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: "armd_x",
      client_id: clientId,
    });
    expect(device.body.error).toBe("unauthorized_client");
    const json = await fetch(`${h.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "refresh_token" }),
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as Json).error).toBe("invalid_request");
  });

  test("registration refuses what a public client may not have", async () => {
    const bad = await h.admin("POST", `/orgs/${org.slug}/oauth_clients`, {
      name: "Bad",
      redirect_uris: ["http://app.example.com/cb", "https://app.example.com/cb#frag"],
      grant_types: ["authorization_code", "client_credentials"],
    });
    expect(bad.status).toBe(422);
    const fields = bad.body.error.fields.map((f: { field: string }) => f.field);
    expect(fields).toContain("redirect_uris.0");
    expect(fields).toContain("redirect_uris.1");
    expect(fields).toContain("grant_types.1");
    const noRedirect = await h.admin("POST", `/orgs/${org.slug}/oauth_clients`, {
      name: "No redirect",
      grant_types: ["authorization_code"],
    });
    expect(noRedirect.status).toBe(422);
    const loopback = await h.admin("POST", `/orgs/${org.slug}/oauth_clients`, {
      name: "Native",
      redirect_uris: ["http://127.0.0.1:8765/callback"],
      grant_types: ["authorization_code"],
    });
    expect(loopback.status).toBe(201);
    const listed = await h.admin("GET", `/orgs/${org.slug}/oauth_clients`);
    expect(listed.body.data.map((c: { name: string }) => c.name)).toContain("Native");
  });
});

describe("OAuth: the device page's limit on wrong codes", () => {
  let h: WebHarness;

  beforeAll(async () => {
    h = await webHarness();
  }, 90_000);
  afterAll(() => h?.close());

  test("ten wrong codes in ten minutes, and the page refuses even a right one for a while", async () => {
    const org = await orgWithMembers(h, "oauth-guess", 0);
    const client = await h.admin("POST", `/orgs/${org.slug}/oauth_clients`, {
      name: "CLI",
      grant_types: ["urn:ietf:params:oauth:grant-type:device_code"],
    });
    const started = (await (
      await fetch(`${h.url}/oauth/device_authorization`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ client_id: client.body.client_id }),
      })
    ).json()) as Json;
    const guesser = await h.signedIn(org.members.approver);
    for (let i = 0; i < 10; i++) {
      const wrong = await guesser.get(`/app/device?user_code=BBBB-BBB${"BCDFGHJKLM"[i]}`);
      expect(wrong.status).toBe(404);
    }
    const refused = await guesser.get(`/app/device?user_code=${started.user_code}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("600");
    expect(refused.text).toContain("Too many wrong codes");
    const posted = await guesser.post("/app/device", {
      user_code: started.user_code,
      decision: "allow",
    });
    expect(posted.status).toBe(429);
    // Another person is not held back by them.
    const other = await h.signedIn(org.members.owner);
    const page = await other.get(`/app/device?user_code=${started.user_code}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("CLI");
  }, 60_000);
});

describe("OAuth: the device authorization endpoint's limit per address", () => {
  let h: WebHarness;

  beforeAll(async () => {
    h = await webHarness();
  }, 90_000);
  afterAll(() => h?.close());

  test("thirty device authorizations in ten minutes from one address, then 429", async () => {
    const org = await orgWithMembers(h, "oauth-flood", 0);
    const client = await h.admin("POST", `/orgs/${org.slug}/oauth_clients`, {
      name: "CLI",
      grant_types: ["urn:ietf:params:oauth:grant-type:device_code"],
    });
    const start = (address: string) =>
      fetch(`${h.url}/oauth/device_authorization`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-forwarded-for": address,
        },
        body: new URLSearchParams({ client_id: client.body.client_id }),
      });
    // Addresses of this run's own: the counters may live in a shared Redis.
    const address = randomIp();
    for (let i = 0; i < 30; i++) expect((await start(address)).status).toBe(200);
    const refused = await start(address);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("600");
    expect(((await refused.json()) as Json).error).toBe("slow_down");
    expect((await start(randomIp())).status).toBe(200);
  }, 60_000);
});

describe("OAuth: the sweep of spent codes and tokens", () => {
  let h: WebHarness;

  beforeAll(async () => {
    h = await webHarness();
  }, 90_000);
  afterAll(() => h?.close());

  test("rows a day past their expiry go; live ones and a used refresh token stay", async () => {
    const org = await orgWithMembers(h, "oauth-sweep", 0);
    const client = await h.admin("POST", `/orgs/${org.slug}/oauth_clients`, {
      name: "CLI",
      grant_types: ["urn:ietf:params:oauth:grant-type:device_code"],
    });
    const post = async (path: string, fields: Record<string, string>) =>
      (await (
        await fetch(`${h.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields),
        })
      ).json()) as Json;
    const started = await post("/oauth/device_authorization", { client_id: client.body.client_id });
    const person = await h.signedIn(org.members.approver);
    await person.get(`/app/device?user_code=${started.user_code}`);
    await person.post("/app/device", { user_code: started.user_code, decision: "allow" });
    h.clock.advance(6_000);
    const tokens = await post("/oauth/token", {
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: started.device_code,
      client_id: client.body.client_id,
    });
    const rotated = await post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.body.client_id,
    });
    expect(rotated.access_token).toStartWith("armo_");
    const { db } = h.runtime.database;
    const count = async () => ({
      tokens: (await db.select().from(oauthTokens)).length,
      devices: (await db.select().from(oauthDeviceAuthorizations)).length,
    });
    expect(await count()).toEqual({ tokens: 4, devices: 1 });

    // Two days on: the device authorization and both access tokens are gone; the refresh tokens
    // (30 days), the used one included, stay, and reusing it still revokes the family.
    expect(await sweepOAuth(db, new Date(h.clock.now().getTime() + 2 * 86_400_000))).toBe(3);
    expect(await count()).toEqual({ tokens: 2, devices: 0 });
    const reused = await post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: client.body.client_id,
    });
    expect(reused.error).toBe("invalid_grant");
    const after = await post("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: rotated.refresh_token,
      client_id: client.body.client_id,
    });
    expect(after.error).toBe("invalid_grant");
    // Past the refresh tokens' 30 days, nothing of the family is left.
    expect(await sweepOAuth(db, new Date(h.clock.now().getTime() + 32 * 86_400_000))).toBe(2);
    expect(await count()).toEqual({ tokens: 0, devices: 0 });
  }, 60_000);
});

describe("OAuth: a session single sign-on opened", () => {
  let h: WebHarness;

  beforeAll(async () => {
    h = await webHarness();
  }, 90_000);
  afterAll(() => h?.close());

  test("allows for its own organization only; another first needs an emailed code", async () => {
    const home = await orgWithMembers(h, "oauth-sso-home", 0);
    const other = await h.admin("POST", "/orgs", { slug: "oauth-sso-other", name: "Other" });
    const email = home.members.approver;
    await h.admin("POST", "/orgs/oauth-sso-other/members", { email, role: "approver" });
    const homeOrg = await h.admin("GET", `/orgs/${home.slug}`);
    const { db } = h.runtime.database;
    const [person] = await db
      .select()
      .from(workspacePeople)
      .where(eq(workspacePeople.email, email));
    const { token } = await startSession(db, person!.id, h.clock.now(), {
      ssoOrganizationId: homeOrg.body.id,
    });
    const visitor = h.visitor();
    visitor.cookies.set("nr_session", token);
    const device = async (org: string) => {
      const client = await h.admin("POST", `/orgs/${org}/oauth_clients`, {
        name: `CLI of ${org}`,
        grant_types: ["urn:ietf:params:oauth:grant-type:device_code"],
      });
      const started = await fetch(`${h.url}/oauth/device_authorization`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ client_id: client.body.client_id }),
      });
      return ((await started.json()) as Json).user_code as string;
    };
    const homeCode = await device(home.slug);
    expect((await visitor.get(`/app/device?user_code=${homeCode}`)).status).toBe(200);

    const otherCode = await device(other.body.slug);
    const sent = await visitor.get(`/app/device?user_code=${otherCode}`);
    expect(sent.status).toBe(303);
    expect(sent.headers.get("location")).toStartWith("/app/sign-in/fresh");
    const posted = await visitor.post("/app/device", { user_code: otherCode, decision: "allow" });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toStartWith("/app/sign-in/fresh");
  }, 60_000);
});
