import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { approvalDecisions, auditEvents } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import {
  orgWithMembers,
  storyInReview,
  type WebClient,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * Approvals through the API across the gateway and the workspace: a command-line tool takes the
 * device grant (RFC 8628), a person allows it on the device page, and its access token approves
 * a story; the token's right is the person's, checked at every call.
 */

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them
type Json = any;

async function formPost(url: string, fields: Record<string, string>) {
  const response = await fetch(url, {
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

async function decide(
  h: WebHarness,
  storyId: string,
  action: "approve" | "reject",
  bearer: string,
  body?: unknown,
) {
  const response = await fetch(`${h.url}/v1/stories/${storyId}/${action}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Json,
  };
}

describe("approvals through the API: the device flow through the gateway", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let clientId: string;
  let approver: WebClient;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "oauth-flow", 3);
    await h.admin("POST", "/orgs", { slug: "oauth-other", name: "Other", newsroom_running: true });
    const registered = await h.admin("POST", "/orgs/oauth-flow/oauth_clients", {
      name: "Desk CLI",
      grant_types: [DEVICE_GRANT],
    });
    expect(registered.status).toBe(201);
    clientId = registered.body.client_id;
    const switched = await h.admin("PATCH", "/orgs/oauth-flow", { api_approvals_enabled: true });
    expect(switched.body.api_approvals_enabled).toBe(true);
    approver = await h.signedIn(org.members.approver);
  }, 90_000);
  afterAll(() => h?.close());

  /** The device grant from the start to the tokens, the person allowing on the device page. */
  async function deviceTokens(person: WebClient): Promise<Json> {
    const started = await formPost(`${h.url}/oauth/device_authorization`, {
      client_id: clientId,
      scope: "stories:approve",
    });
    expect(started.status).toBe(200);
    await person.get(`/app/device?user_code=${started.body.user_code}`);
    const allowed = await person.post("/app/device", {
      user_code: started.body.user_code,
      decision: "allow",
    });
    expect(allowed.status).toBe(200);
    h.clock.advance(6_000);
    const polled = await formPost(`${h.url}/oauth/token`, {
      grant_type: DEVICE_GRANT,
      device_code: started.body.device_code,
      client_id: clientId,
    });
    expect(polled.status).toBe(200);
    return polled.body;
  }

  test("the gateway answers the authorization server's metadata (RFC 8414)", async () => {
    const answer = await fetch(`${h.url}/.well-known/oauth-authorization-server`);
    expect(answer.status).toBe(200);
    const metadata = (await answer.json()) as Json;
    const base = metadata.issuer as string;
    expect(base).toStartWith("http");
    expect(metadata.token_endpoint).toBe(`${base}/oauth/token`);
    expect(metadata.device_authorization_endpoint).toBe(`${base}/oauth/device_authorization`);
    expect(metadata.authorization_endpoint).toBe(`${base}/app/oauth/authorize`);
    expect(metadata.revocation_endpoint).toBe(`${base}/oauth/revoke`);
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.scopes_supported).toEqual(["stories:approve"]);
    expect(metadata.grant_types_supported).toContain(DEVICE_GRANT);
  });

  test("device code, pending, slow_down, the person allows, tokens, and the story is approved", async () => {
    const started = await formPost(`${h.url}/oauth/device_authorization`, {
      client_id: clientId,
      scope: "stories:approve",
    });
    expect(started.status).toBe(200);
    expect(started.headers.get("cache-control")).toContain("no-store");
    expect(started.body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.body.verification_uri).toEndWith("/app/device");
    expect(started.body.interval).toBe(5);
    expect(started.body.expires_in).toBe(600);
    const poll = () =>
      formPost(`${h.url}/oauth/token`, {
        grant_type: DEVICE_GRANT,
        device_code: started.body.device_code,
        client_id: clientId,
      });

    const pending = await poll();
    expect(pending.status).toBe(400);
    expect(pending.body.error).toBe("authorization_pending");
    const tooSoon = await poll();
    expect(tooSoon.status).toBe(400);
    expect(tooSoon.body.error).toBe("slow_down");

    // The person signs in and opens the link the device showed: the application and the scope.
    const page = await approver.get(`/app/device?user_code=${started.body.user_code}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Desk CLI");
    expect(page.text).toContain("Org oauth-flow");
    expect(page.text).toContain("approve and reject stories");
    expect(page.text).toContain(started.body.user_code);
    const allowed = await approver.post("/app/device", {
      user_code: started.body.user_code,
      decision: "allow",
    });
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain("Device connected");

    // The interval grew to ten seconds after slow_down: polled sooner, slow_down again.
    h.clock.advance(6_000);
    expect((await poll()).body.error).toBe("slow_down");
    h.clock.advance(16_000);
    const tokens = await poll();
    expect(tokens.status).toBe(200);
    expect(tokens.headers.get("cache-control")).toContain("no-store");
    expect(tokens.body.token_type).toBe("Bearer");
    expect(tokens.body.access_token).toStartWith("armo_");
    expect(tokens.body.refresh_token).toStartWith("armr_");
    expect(tokens.body.expires_in).toBe(3600);
    expect(tokens.body.scope).toBe("stories:approve");
    // The device code is spent.
    expect((await poll()).body.error).toBe("invalid_grant");

    const storyId = org.storyIds[0]!;
    const approved = await decide(h, storyId, "approve", tokens.body.access_token, {
      note: "Fine by me",
    });
    expect(approved.status).toBe(200);
    expect(approved.body.object).toBe("story");
    expect(approved.body.id).toBe(storyId);
    expect(approved.body.status).toBe("approved");
    expect(Array.isArray(approved.body.body)).toBe(true);
    expect(approved.body.approvals[0]).toMatchObject({
      decision: "approved",
      actor_type: "person",
      actor_role: "approver",
      note: "Fine by me",
    });

    // Internally, the person and the application are on the decision and in the audit log.
    const { db } = h.embedded.runtime.database;
    const [decision] = await db
      .select()
      .from(approvalDecisions)
      .where(eq(approvalDecisions.storyId, storyId));
    expect(decision!.personId).toBeTruthy();
    expect(decision!.oauthClientId).toBeTruthy();
    const audited = await db.select().from(auditEvents).where(eq(auditEvents.subjectId, storyId));
    const entry = audited.find((row) => row.action === "story.approve");
    expect(entry?.actor).toContain(`person:${decision!.personId}`);
    expect(entry?.actor).toContain(`oauth_client:${decision!.oauthClientId}`);
    // The owner's audit page names the person and the application.
    const owner = await h.signedIn(org.members.owner);
    const auditPage = await owner.get("/app/orgs/oauth-flow/audit");
    expect(auditPage.status).toBe(200);
    expect(auditPage.text).toContain(`${org.members.approver} (through Desk CLI)`);
    expect(auditPage.text).toContain("Application allowed");

    // The same token through the client API's read: the decision is there with actor person.
    const rejected = await decide(h, org.storyIds[1]!, "reject", tokens.body.access_token, {});
    expect(rejected.status).toBe(422);
    expect(rejected.body.error.fields[0].field).toBe("note");
    const rejectedWithNote = await decide(h, org.storyIds[1]!, "reject", tokens.body.access_token, {
      note: "Not yet",
    });
    expect(rejectedWithNote.status).toBe(200);
    expect(rejectedWithNote.body.status).toBe("rejected");
  }, 90_000);

  test("a denied device gets access_denied", async () => {
    const started = await formPost(`${h.url}/oauth/device_authorization`, { client_id: clientId });
    await approver.get(`/app/device?user_code=${started.body.user_code}`);
    const denied = await approver.post("/app/device", {
      user_code: started.body.user_code,
      decision: "deny",
    });
    expect(denied.status).toBe(200);
    const polled = await formPost(`${h.url}/oauth/token`, {
      grant_type: DEVICE_GRANT,
      device_code: started.body.device_code,
      client_id: clientId,
    });
    expect(polled.body.error).toBe("access_denied");
  });

  test("an expired device code is expired_token", async () => {
    const started = await formPost(`${h.url}/oauth/device_authorization`, { client_id: clientId });
    h.clock.advance(601_000);
    const polled = await formPost(`${h.url}/oauth/token`, {
      grant_type: DEVICE_GRANT,
      device_code: started.body.device_code,
      client_id: clientId,
    });
    expect(polled.body.error).toBe("expired_token");
  });

  test("an API key on the approve route is refused: keys never approve", async () => {
    const key = await h.admin("POST", "/orgs/oauth-flow/keys", {
      environment: "test",
      scopes: ["stories:read", "approvals:read"],
      lifetime_days: 30,
    });
    expect(key.status).toBe(201);
    const storyId = await storyInReview(h, "oauth-flow", "key-story");
    const answer = await decide(h, storyId, "approve", key.body.secret);
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("forbidden");
    expect(answer.body.error.message).toContain("API keys cannot approve");
    const story = await h.admin("GET", `/stories/${storyId}`);
    expect(story.body.status).toBe("review_required");
  });

  test("no token, or an unknown one, is 401 with a Bearer challenge", async () => {
    const storyId = org.storyIds[2]!;
    const none = await fetch(`${h.url}/v1/stories/${storyId}/approve`, { method: "POST" });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toStartWith("Bearer");
    const unknown = await decide(h, storyId, "approve", `armo_${"x".repeat(43)}`);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  test("another organization's story is 404", async () => {
    const tokens = await deviceTokens(approver);
    const otherStory = await storyInReview(h, "oauth-other", "theirs");
    const answer = await decide(h, otherStory, "approve", tokens.access_token);
    expect(answer.status).toBe(404);
    expect((await h.admin("GET", `/stories/${otherStory}`)).body.status).toBe("review_required");
  }, 60_000);

  test("with the owner's switch off, approve and reject answer 403 naming it", async () => {
    const tokens = await deviceTokens(approver);
    const storyId = await storyInReview(h, "oauth-flow", "switch-story");
    await h.admin("PATCH", "/orgs/oauth-flow", { api_approvals_enabled: false });
    try {
      const answer = await decide(h, storyId, "approve", tokens.access_token);
      expect(answer.status).toBe(403);
      expect(answer.body.error.message).toContain("owner");
      const rejected = await decide(h, storyId, "reject", tokens.access_token, { note: "No" });
      expect(rejected.status).toBe(403);
    } finally {
      await h.admin("PATCH", "/orgs/oauth-flow", { api_approvals_enabled: true });
    }
    expect((await decide(h, storyId, "approve", tokens.access_token)).status).toBe(200);
  }, 60_000);

  test("a person who lost the approver role is refused at once, the token unchanged", async () => {
    const email = `demoted-${Date.now()}@example.com`;
    const loser = await h.admin("POST", "/orgs/oauth-flow/members", { email, role: "approver" });
    expect(loser.status).toBe(201);
    const person = await h.signedIn(email);
    const tokens = await deviceTokens(person);
    const storyId = await storyInReview(h, "oauth-flow", "demoted-story");
    const demoted = await h.admin("POST", "/orgs/oauth-flow/members", { email, role: "editor" });
    expect(demoted.status).toBe(200);
    const answer = await decide(h, storyId, "approve", tokens.access_token);
    expect(answer.status).toBe(403);
    expect(answer.body.error.message).toContain("may no longer decide");
    // Nor does a refresh give a new token.
    const refreshed = await formPost(`${h.url}/oauth/token`, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.body.error).toBe("invalid_grant");
    expect((await h.admin("GET", `/stories/${storyId}`)).body.status).toBe("review_required");
  }, 60_000);
});
