import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  orgWithMembers,
  storyInReview,
  type WebClient,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/**
 * Approvals through the API, taken back in the web app: an application a person allowed (here
 * through the device flow) approves stories with its access token until the person revokes it on
 * /app/applications, an owner deletes it, or an owner turns approvals through the API off. Each
 * time the next request with the token is refused and the story stays as it was. Another
 * person cannot revoke someone's grant (404).
 */
describe("approvals through the API, taken back in the web app", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;
  let owner: WebClient;
  let approver: WebClient;
  let metadata: { token_endpoint: string; device_authorization_endpoint: string };
  const ORG = "oauth-flow";
  const BASE = `/app/orgs/${ORG}/oauth-clients`;

  beforeAll(async () => {
    h = await webHarness();
    org = await orgWithMembers(h, ORG, 0);
    owner = await h.signedIn(org.members.owner);
    approver = await h.signedIn(org.members.approver);
    metadata = await (await fetch(`${h.url}/.well-known/oauth-authorization-server`)).json();
    // The owner turns approvals through the API on, through the overview's switch.
    await owner.get(`/app/orgs/${ORG}`);
    const on = await owner.post(`/app/orgs/${ORG}/api-approvals`, {
      enabled: "true",
      confirm: "yes",
    });
    expect(on.status).toBe(303);
  }, 120_000);
  afterAll(() => h?.close());

  /** The owner registers a device-flow application on the page; its client id, from the list. */
  async function registered(name: string): Promise<{ id: string; clientId: string }> {
    await owner.get(BASE);
    const posted = await owner.post(BASE, { name, redirect_uris: "", grant_types: DEVICE_GRANT });
    expect(posted.status).toBe(303);
    const listed = await h.admin("GET", `/orgs/${ORG}/oauth_clients`);
    const client = (listed.body.data as { id: string; name: string; client_id: string }[]).find(
      (row) => row.name === name,
    )!;
    return { id: client.id, clientId: client.client_id };
  }

  /** The approver allows the application on /app/device; the access token it then receives. */
  async function allowedToken(clientId: string, person = approver): Promise<string> {
    const started = await fetch(metadata.device_authorization_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: clientId, scope: "stories:approve" }),
    });
    expect(started.status).toBe(200);
    const device = (await started.json()) as { device_code: string; user_code: string };
    const shown = await person.get(`/app/device?user_code=${encodeURIComponent(device.user_code)}`);
    expect(shown.status).toBe(200);
    const allowed = await person.post("/app/device", {
      user_code: device.user_code,
      decision: "allow",
    });
    expect(allowed.status).toBeLessThan(400);
    const tokens = await fetch(metadata.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: DEVICE_GRANT,
        device_code: device.device_code,
        client_id: clientId,
      }),
    });
    expect(tokens.status).toBe(200);
    return ((await tokens.json()) as { access_token: string }).access_token;
  }

  const approve = (story: string, token: string) =>
    fetch(`${h.url}/v1/stories/${story}/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({}),
    });
  const statusOf = async (story: string) =>
    (await h.admin("GET", `/stories/${story}`)).body.status as string;
  /** The revoke link of the person's grant of this application, from their applications page. */
  const revokeLinkOf = async (person: WebClient, name: string) => {
    const page = await person.get("/app/applications");
    expect(page.status).toBe(200);
    const row = page.text.split("<section").find((part) => part.includes(`">${name}</h2>`));
    return row ? /href="(\/app\/applications\/[0-9a-f-]+\/revoke)"/.exec(row)?.[1] : undefined;
  };

  test("a grant the person revokes on /app/applications stops its token on the approve route", async () => {
    const { clientId } = await registered("Revoked by the person");
    const token = await allowedToken(clientId);
    const first = await storyInReview(h, ORG, "revoked-1");
    expect((await approve(first, token)).status).toBe(200);
    expect(await statusOf(first)).toBe("approved");

    const link = await revokeLinkOf(approver, "Revoked by the person");
    expect(link).toBeDefined();
    const page = await approver.get("/app/applications");
    const row = page.text
      .split("<section")
      .find((part) => part.includes('">Revoked by the person</h2>'))!;
    expect(row).toContain(`<dd>Org ${ORG}</dd>`);
    expect(row).toContain("<code>stories:approve</code>");
    // Allowed and last used: both dated, since the token approved a story.
    expect(row.match(/<time datetime="[^"]+">/g)?.length).toBe(2);
    expect(row).not.toContain("never");
    const confirm = await approver.get(link!);
    expect(confirm.text).toContain("Revoke Revoked by the person?");
    // Without the confirmation, nothing is revoked.
    expect((await approver.post(link!)).headers.get("location")).toBe(link!);
    const second = await storyInReview(h, ORG, "revoked-2");
    expect((await approve(second, token)).status).toBe(200);
    const revoked = await approver.post(link!, { confirm: "yes" });
    expect(revoked.headers.get("location")).toBe("/app/applications?done=application-revoked");
    expect(await revokeLinkOf(approver, "Revoked by the person")).toBeUndefined();

    const third = await storyInReview(h, ORG, "revoked-3");
    expect((await approve(third, token)).status).toBe(401);
    expect(await statusOf(third)).toBe("review_required");
  });

  test("another person cannot see or revoke someone's grant: 404, and the token still works", async () => {
    const { clientId } = await registered("Allowed by another");
    const token = await allowedToken(clientId);
    const link = (await revokeLinkOf(approver, "Allowed by another"))!;
    const admin = await h.signedIn(org.members.admin);
    expect(await revokeLinkOf(admin, "Allowed by another")).toBeUndefined();
    expect((await admin.get(link)).status).toBe(404);
    await admin.get("/app/applications");
    expect((await admin.post(link, { confirm: "yes" })).status).toBe(404);
    const story = await storyInReview(h, ORG, "still-allowed");
    expect((await approve(story, token)).status).toBe(200);
  });

  test("an application the owner deletes: its tokens are refused at once", async () => {
    const { id, clientId } = await registered("Deleted by the owner");
    const token = await allowedToken(clientId);
    const story = await storyInReview(h, ORG, "deleted-app");
    await owner.get(`${BASE}/${id}/delete`);
    expect((await owner.post(`${BASE}/${id}/delete`, { confirm: "yes" })).status).toBe(303);
    expect(await revokeLinkOf(approver, "Deleted by the owner")).toBeUndefined();
    expect((await approve(story, token)).status).toBe(401);
    expect(await statusOf(story)).toBe("review_required");
  });

  test("the owner's switch off refuses every token; on again, the same token decides", async () => {
    const { clientId } = await registered("Switched off");
    const token = await allowedToken(clientId);
    const story = await storyInReview(h, ORG, "switched-off");
    await owner.get(`/app/orgs/${ORG}`);
    const off = await owner.post(`/app/orgs/${ORG}/api-approvals`, {
      enabled: "false",
      confirm: "yes",
    });
    expect(off.status).toBe(303);
    const refused = await approve(story, token);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(await statusOf(story)).toBe("review_required");
    await owner.get(`/app/orgs/${ORG}`);
    await owner.post(`/app/orgs/${ORG}/api-approvals`, { enabled: "true", confirm: "yes" });
    expect((await approve(story, token)).status).toBe(200);
    expect(await statusOf(story)).toBe("approved");
  });
});
