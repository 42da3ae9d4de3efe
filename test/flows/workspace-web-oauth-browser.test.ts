import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "../../services/workspace/test/support/accessibility.ts";
import {
  orgWithMembers,
  signInAs,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** A PKCE pair (RFC 7636): a random verifier and its S256 challenge. */
function pkce() {
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash("sha256").update(verifier).digest());
  return { verifier, challenge };
}

/**
 * A program on the person's machine receiving the redirect: a local server on 127.0.0.1 that keeps
 * the addresses it was sent to, as a native application does (RFC 8252 §7.3).
 */
function startRedirectReceiver() {
  const received: URL[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      // The browser also asks for a favicon: only the redirect counts.
      if (url.pathname !== "/callback") return new Response(null, { status: 404 });
      received.push(url);
      return new Response(
        '<!doctype html><html lang="en"><title>Done</title><main><h1>You may close this window</h1></main></html>',
        { headers: { "content-type": "text/html; charset=utf-8" } },
      );
    },
  });
  return {
    redirectUri: `http://127.0.0.1:${server.port}/callback`,
    received,
    stop: () => server.stop(true),
  };
}

/**
 * Approvals through the API in Chromium, every page checked with axe-core and at 390 px. The
 * owner turns them on (after a confirmation) and registers the application (a plain http redirect
 * URI refused beside its field, then the receiver's loopback address accepted). Then the
 * authorization code flow with PKCE, as a person lives it: an application on
 * their machine opens the authorization URL, the person signs in, reads the consent page (axe-core
 * clean, 390 px wide) and allows; the browser lands on the application's loopback receiver with
 * the code and the state. The application exchanges the code with its verifier and approves a
 * submitted story with the access token (the owner turned approvals through the API on); a code
 * presented with the wrong verifier is refused. Revoking on the person's applications page, and the
 * owner deleting the application, each refuse the next request with the token.
 */
describeInBrowser("approvals through the API: the authorization code flow in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: ReturnType<typeof startRedirectReceiver>;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let clientId: string;
  let metadata: {
    authorization_endpoint: string;
    token_endpoint: string;
    revocation_endpoint: string;
  };

  beforeAll(async () => {
    h = await webHarness();
    receiver = startRedirectReceiver();
    org = await orgWithMembers(h, "oauth-desk", 2);
    const answer = await fetch(`${h.url}/.well-known/oauth-authorization-server`);
    expect(answer.status).toBe(200);
    metadata = await answer.json();
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no other script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    receiver?.stop();
    await h?.close();
  });

  /** Opens the authorization URL, allows on the consent page, and gives what the receiver got. */
  async function authorize(challenge: string, state: string, check = false): Promise<URL> {
    const url = new URL(metadata.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: receiver.redirectUri,
      scope: "stories:approve",
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }).toString();
    const before = receiver.received.length;
    await page.goto(url.toString());
    await page.getByRole("heading", { level: 1 }).waitFor();
    const main = (await page.textContent("main")) ?? "";
    expect(main).toContain("Desk approver");
    expect(main).toContain("approve and reject stories");
    expect(main).toContain("Org oauth-desk");
    if (check) await expectAccessible(page);
    await page.getByRole("button", { name: /^Allow/ }).click();
    await page.waitForURL(`${receiver.redirectUri}?**`);
    expect(receiver.received.length).toBe(before + 1);
    return receiver.received.at(-1)!;
  }

  const exchange = (code: string, verifier: string) =>
    fetch(metadata.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: receiver.redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });

  const approveWith = (token: string, story: string, note?: string) =>
    fetch(`${h.url}/v1/stories/${story}/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(note === undefined ? {} : { note }),
    });

  test("the owner turns approvals through the API on and registers the application", async () => {
    const ownerContext = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    const owner = await ownerContext.newPage();
    try {
      await signInAs(owner, h, org.members.owner);
      await owner.goto("/app/orgs/oauth-desk");
      const section = owner.getByRole("region", { name: "Approvals through the API" });
      expect(await section.textContent()).toContain("Approvals through the API: off");
      await expectAccessible(owner);
      await section.getByRole("button", { name: "Turn approvals through the API on" }).click();
      await owner.getByRole("heading", { name: "Turn approvals through the API on?" }).waitFor();
      await expectAccessible(owner);
      await owner.getByRole("button", { name: "Turn on" }).click();
      await owner.waitForURL("**/app/orgs/oauth-desk?done=api-approvals-on");
      expect(await section.textContent()).toContain("Approvals through the API: on");
      await expectAccessible(owner);

      await owner.getByRole("link", { name: "OAuth applications" }).first().click();
      await owner.waitForURL("**/app/orgs/oauth-desk/oauth-clients");
      await expectAccessible(owner);
      const uris = owner.getByLabel("Redirect URIs, one a line");
      await owner.getByLabel("Name").fill("Desk approver");
      // Plain http away from this computer is refused, beside the field.
      await uris.fill("http://desk.example.com/callback");
      await owner.getByRole("button", { name: "Register application" }).click();
      await owner.locator("#field-redirect_uris-error").waitFor();
      expect(await owner.textContent("#field-redirect_uris-error")).toContain("Line 1:");
      expect(await uris.getAttribute("aria-invalid")).toBe("true");
      await expectAccessible(owner);
      await uris.fill(receiver.redirectUri);
      await owner.getByRole("button", { name: "Register application" }).click();
      await owner.waitForURL("**/oauth-clients?done=oauth-client-registered");
      await expectAccessible(owner);
      const listed = await h.admin("GET", "/orgs/oauth-desk/oauth_clients");
      const client = (listed.body.data as { name: string; client_id: string }[]).find(
        (row) => row.name === "Desk approver",
      )!;
      expect(await owner.textContent("main")).toContain(client.client_id);
      expect(await owner.textContent("main")).toContain(receiver.redirectUri);
      clientId = client.client_id;
    } finally {
      await ownerContext.close();
    }
  });

  test("sign in as an approver", async () => {
    await signInAs(page, h, org.members.approver);
  });

  test("allow on the consent page, exchange the code with the verifier, approve a story with the token", async () => {
    const { verifier, challenge } = pkce();
    const state = base64url(randomBytes(16));
    const landed = await authorize(challenge, state, true);
    expect(landed.pathname).toBe("/callback");
    expect(landed.searchParams.get("state")).toBe(state);
    const code = landed.searchParams.get("code");
    expect(code).toBeTruthy();

    const tokens = await exchange(code!, verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.headers.get("cache-control")).toContain("no-store");
    const body = (await tokens.json()) as {
      access_token: string;
      token_type: string;
      expires_in: number;
      scope: string;
    };
    expect(body.token_type.toLowerCase()).toBe("bearer");
    expect(body.scope).toBe("stories:approve");
    expect(body.expires_in).toBeGreaterThan(0);

    const story = org.storyIds[0]!;
    const approved = await approveWith(
      body.access_token,
      story,
      "Approved from the desk application",
    );
    expect(approved.status).toBe(200);
    const detail = (await approved.json()) as {
      object: string;
      id: string;
      status: string;
      approvals: { decision: string; note: string | null }[];
    };
    expect(detail.object).toBe("story");
    expect(detail.id).toBe(story);
    expect(detail.status).toBe("approved");
    expect(detail.approvals[0]).toMatchObject({
      decision: "approved",
      note: "Approved from the desk application",
    });
    // The code is spent: a second exchange is refused, and ends the tokens the first one gave
    // (RFC 6749 §4.1.2: a code used twice may have been stolen).
    expect((await exchange(code!, verifier)).status).toBe(400);
    expect((await approveWith(body.access_token, org.storyIds[1]!)).status).toBe(401);
  });

  test("a code presented with another verifier is refused", async () => {
    const { challenge } = pkce();
    const landed = await authorize(challenge, "second");
    const code = landed.searchParams.get("code")!;
    const refused = await exchange(code, pkce().verifier);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe("invalid_grant");
  });

  test("revoked on the person's applications page, after the confirmation: the token is refused", async () => {
    const { verifier, challenge } = pkce();
    const landed = await authorize(challenge, "third");
    const exchanged = await exchange(landed.searchParams.get("code")!, verifier);
    expect(exchanged.status).toBe(200);
    const token = ((await exchanged.json()) as { access_token: string }).access_token;
    await page.goto("/app/");
    await page.getByRole("link", { name: "Your applications" }).click();
    await page.waitForURL("**/app/applications");
    expect(await page.textContent("main")).toContain("Desk approver");
    await expectAccessible(page);
    await page
      .getByRole("link", { name: /^Revoke Desk approver/ })
      .first()
      .click();
    await page.waitForURL("**/revoke");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Revoke access" }).click();
    await page.waitForURL("**/app/applications?done=application-revoked");
    expect(await page.getByRole("status").textContent()).toContain("access was revoked");
    expect(await page.textContent("main")).toContain("You have not allowed any application.");
    await expectAccessible(page);
    const refused = await approveWith(token, org.storyIds[1]!);
    expect(refused.status).toBe(401);
  });

  test("the owner deletes the application after the confirmation: its new token is refused", async () => {
    const { verifier, challenge } = pkce();
    const landed = await authorize(challenge, "fourth");
    const exchanged = await exchange(landed.searchParams.get("code")!, verifier);
    expect(exchanged.status).toBe(200);
    const token = ((await exchanged.json()) as { access_token: string }).access_token;
    const ownerContext = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    const owner = await ownerContext.newPage();
    try {
      await signInAs(owner, h, org.members.owner);
      await owner.goto("/app/orgs/oauth-desk/oauth-clients");
      await owner.getByRole("link", { name: "Delete Desk approver" }).click();
      await owner.waitForURL("**/delete");
      expect(await owner.textContent("main")).toContain("tokens stop working at once");
      await expectAccessible(owner);
      await owner.getByRole("button", { name: "Delete application" }).click();
      await owner.waitForURL("**/oauth-clients?done=oauth-client-deleted");
      expect(await owner.textContent("main")).toContain("No applications yet.");
      await expectAccessible(owner);
    } finally {
      await ownerContext.close();
    }
    expect((await approveWith(token, org.storyIds[1]!)).status).toBe(401);
  });
});
