import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MEMBER_ROLES, type MemberRole, webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { eq } from "drizzle-orm";
import { readmeTable } from "../../services/workspace/test/support/permission-table.ts";
import {
  orgWithMembers,
  type WebClient,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * Resend and recover in the web app: the Resend button of the delivery log, the offer to resend
 * failed deliveries after enabling an endpoint (default: when it was disabled), what 14 days
 * allow, who may (docs/permissions.md's `endpoint.enable` row), another organization (404), and the
 * 12-hour rule.
 */
const table = readmeTable();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("resending webhook deliveries in the web app", () => {
  let h: WebHarness;
  let receiver: Receiver;
  const clients = {} as Record<MemberRole, WebClient>;

  beforeAll(async () => {
    h = await webHarness({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
    receiver = startReceiver();
    const org = await orgWithMembers(h, "resend-org", 0);
    for (const role of MEMBER_ROLES) clients[role] = await h.signedIn(org.members[role]);
  }, 120_000);
  afterAll(async () => {
    receiver?.stop();
    await h?.close();
  });

  const db = () => h.embedded.runtime.database.db;
  const endpoint = async (path: string) => {
    const made = await h.admin("POST", "/orgs/resend-org/webhook_endpoints", {
      url: receiver.url(path),
      events: ["story.published"],
    });
    return { id: made.body.id as string };
  };
  /** A delivery that failed `ageMs` ago (its receiver never answered 2xx). */
  const failedDelivery = async (endpointId: string, ageMs: number) => {
    const org = await h.admin("GET", "/orgs/resend-org");
    const id = newId();
    const createdAt = new Date(h.clock.now().getTime() - ageMs);
    await db().insert(webhookDeliveries).values({
      id,
      organizationId: org.body.id,
      endpointId,
      eventId: newId(),
      eventType: "story.published",
      status: "failed",
      attempts: 8,
      lastStatusCode: 500,
      lastError: "status 500",
      eventCreatedAt: createdAt,
      createdAt,
    });
    return id;
  };
  const statusOf = async (id: string) =>
    (await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!.status;

  test("enabling offers to resend failed deliveries since it was disabled; recovering twice resends once", async () => {
    const { id } = await endpoint("/recover");
    const recent = await failedDelivery(id, 2 * HOUR);
    const older = await failedDelivery(id, 3 * DAY);
    await h.admin("POST", `/webhook_endpoints/${id}/disable`);
    const owner = clients.owner;
    await owner.get(`/app/webhook-endpoints/${id}`);
    const enabled = await owner.post(`/app/webhook-endpoints/${id}/enable`);
    expect(enabled.status).toBe(303);
    expect(enabled.headers.get("location")).toBe(`/app/webhook-endpoints/${id}/recover?enabled=1`);
    const offer = await owner.get(`/app/webhook-endpoints/${id}/recover?enabled=1`);
    expect(offer.status).toBe(200);
    expect(offer.text).toContain("is enabled again");
    const since = /name="since" type="datetime-local"\s+value="([^"]+)"/.exec(offer.text)?.[1];
    // The default is when it was disabled: a moment ago, to the minute.
    expect(since).toBe(h.clock.now().toISOString().slice(0, 16));

    const dayAgo = new Date(h.clock.now().getTime() - DAY).toISOString().slice(0, 16);
    const first = await owner.post(`/app/webhook-endpoints/${id}/recover`, { since: dayAgo });
    expect(first.status).toBe(200);
    expect(first.text).toContain("1 failed delivery is being sent again");
    expect(["pending", "delivered"]).toContain(await statusOf(recent));
    expect(await statusOf(older)).toBe("failed");
    const second = await owner.post(`/app/webhook-endpoints/${id}/recover`, { since: dayAgo });
    expect(second.text).toContain("nothing was resent");
    const audit = await owner.get("/app/orgs/resend-org/audit");
    expect(audit.text).toContain("Failed webhook deliveries resent (1)");

    const tooOld = new Date(h.clock.now().getTime() - 15 * DAY).toISOString().slice(0, 16);
    const refused = await owner.post(`/app/webhook-endpoints/${id}/recover`, { since: tooOld });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("at most 14 days");
    expect(refused.text).toContain('aria-invalid="true"');
    expect(await statusOf(older)).toBe("failed");
  });

  test("the delivery log's Resend button sends one delivery again", async () => {
    const { id } = await endpoint("/resend");
    const delivery = await failedDelivery(id, HOUR);
    const page = await clients.admin.get(`/app/webhook-endpoints/${id}`);
    expect(page.text).toContain(`action="/app/webhook-deliveries/${delivery}/resend"`);
    const answer = await clients.admin.post(`/app/webhook-deliveries/${delivery}/resend`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(
      `/app/webhook-endpoints/${id}?done=delivery-resent`,
    );
    expect(["pending", "delivered"]).toContain(await statusOf(delivery));
    const audit = await clients.admin.get("/app/orgs/resend-org/audit");
    expect(audit.text).toContain("Webhook delivery resent");
  });

  for (const role of MEMBER_ROLES) {
    const allowed = table.get("endpoint.enable")![role];
    if (allowed) continue;
    test(`${role}: resend and recover are 403 and change nothing`, async () => {
      const { id } = await endpoint(`/role-${role}`);
      const delivery = await failedDelivery(id, HOUR);
      const client = clients[role];
      await client.get("/app/");
      expect((await client.post(`/app/webhook-deliveries/${delivery}/resend`)).status).toBe(403);
      expect((await client.get(`/app/webhook-endpoints/${id}/recover`)).status).toBe(403);
      const since = new Date(h.clock.now().getTime() - DAY).toISOString().slice(0, 16);
      expect((await client.post(`/app/webhook-endpoints/${id}/recover`, { since })).status).toBe(
        403,
      );
      expect(await statusOf(delivery)).toBe("failed");
    });
  }

  test("another organization's owner: 404, nothing resent", async () => {
    const other = await orgWithMembers(h, "resend-other", 0);
    const stranger = await h.signedIn(other.members.owner);
    const { id } = await endpoint("/not-yours");
    const delivery = await failedDelivery(id, HOUR);
    await stranger.get("/app/");
    expect((await stranger.post(`/app/webhook-deliveries/${delivery}/resend`)).status).toBe(404);
    expect((await stranger.get(`/app/webhook-endpoints/${id}/recover`)).status).toBe(404);
    const since = new Date(h.clock.now().getTime() - DAY).toISOString().slice(0, 16);
    expect((await stranger.post(`/app/webhook-endpoints/${id}/recover`, { since })).status).toBe(
      404,
    );
    expect(await statusOf(delivery)).toBe("failed");
  });

  test("at 13 hours resend and recover wait for a new code and come back to their page", async () => {
    const { id } = await endpoint("/late");
    const delivery = await failedDelivery(id, HOUR);
    for (let hours = 0; hours < 13; hours += 6.5) {
      h.clock.advance(6.5 * HOUR);
      await clients.owner.get("/app/");
    }
    await clients.owner.get(`/app/webhook-endpoints/${id}`);
    const resend = await clients.owner.post(`/app/webhook-deliveries/${delivery}/resend`);
    expect(resend.headers.get("location")).toBe(
      `/app/sign-in/fresh?return_to=${encodeURIComponent(`/app/webhook-endpoints/${id}`)}`,
    );
    const since = new Date(h.clock.now().getTime() - DAY).toISOString().slice(0, 16);
    const recover = await clients.owner.post(`/app/webhook-endpoints/${id}/recover`, { since });
    expect(recover.headers.get("location")).toBe(
      `/app/sign-in/fresh?return_to=${encodeURIComponent(`/app/webhook-endpoints/${id}/recover`)}`,
    );
    expect(await statusOf(delivery)).toBe("failed");
  });
});
