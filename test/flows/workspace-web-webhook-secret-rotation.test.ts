import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { secretsKey } from "@newsroom/shared/config";
import { webhookEndpoints } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { open } from "@newsroom/shared/secret-box";
import { eq } from "drizzle-orm";
import { orgWithMembers, type WebHarness, webHarness } from "../support/workspace-web-embedded.ts";

/**
 * Rotating an endpoint's secret: through the internal API and the endpoint page, the new secret
 * shown once, the old one kept (sealed) for 24 hours; only who may add endpoints may rotate, with
 * a fresh sign-in, and never in another organization.
 */
const HOUR = 3_600_000;

describe("rotating a webhook endpoint's secret", () => {
  let h: WebHarness;
  let org: Awaited<ReturnType<typeof orgWithMembers>>;

  beforeAll(async () => {
    h = await webHarness({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
    org = await orgWithMembers(h, "rotating-org", 0);
    await orgWithMembers(h, "other-rotating-org", 0);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const db = () => h.embedded.runtime.database.db;
  const key = () => secretsKey(h.embedded.runtime.config);
  const endpointRow = async (id: string) =>
    (await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)))[0]!;
  const newEndpoint = async (slug = "rotating-org") => {
    const made = await h.admin("POST", `/orgs/${slug}/webhook_endpoints`, {
      url: "http://127.0.0.1:9/hook",
      events: ["story.published"],
    });
    return { id: made.body.id as string, secret: made.body.secret as string };
  };

  test("the internal API answers the new secret once and keeps the old one for 24 hours", async () => {
    const { id, secret: first } = await newEndpoint();
    const before = Date.now();
    const answer = await h.admin("POST", `/webhook_endpoints/${id}/rotate-secret`);
    expect(answer.status).toBe(200);
    expect(answer.body.secret).toMatch(/^whsec_/);
    expect(answer.body.secret).not.toBe(first);
    expect(answer.body.secret_hint).toBe(answer.body.secret.slice(-4));
    expect(answer.body.previous_secret_expires_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const row = await endpointRow(id);
    expect(open(row.secretCiphertext, key())).toBe(answer.body.secret);
    expect(open(row.previousSecretCiphertext!, key())).toBe(first);
    const expires = row.previousSecretExpiresAt!.getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 24 * HOUR);
    expect(expires).toBeLessThan(Date.now() + 24 * HOUR + 1_000);
    expect(
      (await h.admin("GET", `/orgs/rotating-org/webhook_endpoints`)).body.data[0],
    ).not.toHaveProperty("secret");
    expect((await h.admin("POST", `/webhook_endpoints/${newId()}/rotate-secret`)).status).toBe(404);
  });

  test("an owner rotates on the endpoint page and sees the new secret once", async () => {
    const { id, secret: first } = await newEndpoint();
    const owner = await h.signedIn(org.members.owner);
    const page = await owner.get(`/app/webhook-endpoints/${id}`);
    expect(page.text).toContain(`action="/app/webhook-endpoints/${id}/rotate-secret"`);
    const rotated = await owner.post(`/app/webhook-endpoints/${id}/rotate-secret`);
    // The new secret is shown on the page the rotation leads to, once: a reload rotates nothing.
    expect(rotated.status).toBe(303);
    const location = rotated.headers.get("location")!;
    expect(location).toBe(`/app/webhook-endpoints/${id}/rotated`);
    const answer = await owner.get(location);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toContain("no-store");
    const shown = answer.text.match(/value="(whsec_[A-Za-z0-9+/=]+)"/)?.[1];
    expect(shown).toBeDefined();
    expect(answer.text).toContain("will not be shown again");
    const row = await endpointRow(id);
    expect(open(row.secretCiphertext, key())).toBe(shown!);
    expect(open(row.previousSecretCiphertext!, key())).toBe(first);
    const reloaded = await owner.get(location);
    expect(reloaded.status).toBe(200);
    expect(reloaded.text).not.toContain("whsec_");
    expect(reloaded.text).toContain("is not shown again");
    expect(open((await endpointRow(id)).secretCiphertext, key())).toBe(shown!);
    const after = await owner.get(`/app/webhook-endpoints/${id}`);
    expect(after.text).toContain("the previous secret also signs until");
    expect(after.text).not.toContain(shown!);
  });

  test("a viewer may not rotate; another organization's endpoint is not found", async () => {
    const { id } = await newEndpoint();
    const before = (await endpointRow(id)).secretCiphertext;
    const viewer = await h.signedIn(org.members.viewer);
    await viewer.get("/app/");
    expect((await viewer.post(`/app/webhook-endpoints/${id}/rotate-secret`)).status).toBe(403);
    const other = await newEndpoint("other-rotating-org");
    const owner = await h.signedIn(org.members.owner);
    await owner.get("/app/");
    expect((await owner.post(`/app/webhook-endpoints/${other.id}/rotate-secret`)).status).toBe(404);
    expect((await endpointRow(id)).secretCiphertext).toBe(before);
    expect((await endpointRow(other.id)).previousSecretCiphertext).toBeNull();
  });

  test("a sign-in older than 12 hours is sent for a new code first", async () => {
    const { id } = await newEndpoint();
    const owner = await h.signedIn(org.members.owner);
    for (let hours = 0; hours < 13; hours += 6.5) {
      h.clock.advance(6.5 * HOUR);
      await owner.get("/app/");
    }
    const answer = await owner.post(`/app/webhook-endpoints/${id}/rotate-secret`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(
      `/app/sign-in/fresh?return_to=${encodeURIComponent(`/app/webhook-endpoints/${id}`)}`,
    );
    expect((await endpointRow(id)).previousSecretCiphertext).toBeNull();
  });
});
