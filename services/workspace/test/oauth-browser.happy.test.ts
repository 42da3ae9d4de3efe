import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { describeInBrowser, launchChromium } from "@newsroom/shared/testing/browser";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "./support/accessibility.ts";
import { orgWithMembers, signInAs, type WebHarness, webHarness } from "./support/web-app.ts";

/**
 * The device page and the consent page in Chromium, as a person meets them: a code typed (a wrong
 * one refused beside its field), the request shown and allowed; the consent page of the code
 * grant leading back to the application with a code its verifier exchanges. Each page passes
 * axe-core and fits 390 px.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them
type Json = any;

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

describeInBrowser("the OAuth pages in Chromium", () => {
  let h: WebHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  /** The application's redirect URI: a page on the loopback address that answers anything. */
  let callback: ReturnType<typeof Bun.serve>;

  async function tokenRequest(fields: Record<string, string>) {
    const response = await fetch(`${h.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, "oauthweb", 1);
    callback = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response("<!doctype html><title>Back</title><p>Back in the application.</p>", {
          headers: { "content-type": "text/html" },
        }),
    });
    browser = await launchChromium();
    // Only so that the test can inject axe-core: the app's CSP allows no script.
    context = await browser.newContext({ baseURL: h.url, bypassCSP: true });
    page = await context.newPage();
    await signInAs(page, h, org.members.approver);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await callback?.stop();
    await h?.close();
  });

  test("the device page: a code typed, a wrong one refused beside its field, then allowed", async () => {
    const client = await h.admin("POST", "/orgs/oauthweb/oauth_clients", {
      name: "Desk CLI",
      grant_types: [DEVICE_GRANT],
    });
    const started = await fetch(`${h.url}/oauth/device_authorization`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: client.body.client_id }),
    });
    const device = (await started.json()) as Json;

    await page.goto("/app/device");
    await expectAccessible(page);
    await page.getByLabel("Code").fill("BBBB-BBBB");
    const [refused] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name: "Continue" }).click(),
    ]);
    expect(refused!.status()).toBe(404);
    expect(await page.locator("#field-user_code-error").textContent()).toContain(
      "unknown or expired",
    );
    expect(await page.getByLabel("Code").getAttribute("aria-describedby")).toContain(
      "field-user_code-error",
    );
    await expectAccessible(page);

    await page.getByLabel("Code").fill(device.user_code.toLowerCase());
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name: "Continue" }).click(),
    ]);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Allow Desk CLI?");
    expect(await page.getByLabel("Organization").inputValue()).toBeTruthy();
    await expectAccessible(page);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole("button", { name: "Allow", exact: true }).click(),
    ]);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Device connected");
    await expectAccessible(page);

    h.clock.advance(6_000);
    const tokens = await tokenRequest({
      grant_type: DEVICE_GRANT,
      device_code: device.device_code,
      client_id: client.body.client_id,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body.access_token).toStartWith("armo_");
  }, 60_000);

  test("the consent page of the code grant leads back to the application with a code", async () => {
    const redirectUri = `http://127.0.0.1:${callback.port}/callback`;
    const client = await h.admin("POST", "/orgs/oauthweb/oauth_clients", {
      name: "Review board",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
    });
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const query = new URLSearchParams({
      response_type: "code",
      client_id: client.body.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope: "stories:approve",
      state: "s-123",
    });
    await page.goto(`/app/oauth/authorize?${query}`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Allow Review board?");
    expect(await page.locator("main").textContent()).toContain("approve and reject stories");
    await expectAccessible(page);
    await Promise.all([
      page.waitForURL(`${redirectUri}?**`),
      page.getByRole("button", { name: "Allow", exact: true }).click(),
    ]);
    const back = new URL(page.url());
    expect(back.searchParams.get("state")).toBe("s-123");
    const tokens = await tokenRequest({
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: client.body.client_id,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toStartWith("armr_");
  }, 60_000);
});
