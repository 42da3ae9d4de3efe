import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  MEMBER_ROLES,
  type MemberRole,
  webhookAttempts,
  webhookDeliveries,
} from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { readmeTable } from "../../services/workspace/test/support/permission-table.ts";
import {
  orgWithMembers,
  type WebClient,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * A delivery's attempt details in the web app: time, HTTP status, duration, reason and the first
 * 1 KiB of the answer, shown as text; who may read them (those who may open the endpoint's
 * page), and another organization (404).
 */
const table = readmeTable();

describe("attempt details in the web app", () => {
  let h: WebHarness;
  const clients = {} as Record<MemberRole, WebClient>;
  let endpointId: string;
  let deliveryId: string;

  beforeAll(async () => {
    h = await webHarness({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
    const org = await orgWithMembers(h, "attempts-org", 0);
    for (const role of MEMBER_ROLES) clients[role] = await h.signedIn(org.members[role]);
    endpointId = (
      await h.admin("POST", "/orgs/attempts-org/webhook_endpoints", {
        url: "http://127.0.0.1:9/hooks",
        events: ["story.published"],
      })
    ).body.id;
    const organizationId = (await h.admin("GET", "/orgs/attempts-org")).body.id;
    const db = h.embedded.runtime.database.db;
    deliveryId = newId();
    const at = new Date(Date.now() - 60_000);
    await db.insert(webhookDeliveries).values({
      id: deliveryId,
      organizationId,
      endpointId,
      eventId: newId(),
      eventType: "story.published",
      status: "failed",
      attempts: 2,
      lastStatusCode: 503,
      lastDurationMs: 87,
      lastError: "receiver answered 503",
      eventCreatedAt: at,
      createdAt: at,
    });
    await db.insert(webhookAttempts).values([
      {
        id: newId(),
        organizationId,
        deliveryId,
        attempt: 1,
        at,
        statusCode: null,
        durationMs: 10_001,
        responseBody: null,
        reason: "timed out after 10 s",
      },
      {
        id: newId(),
        organizationId,
        deliveryId,
        attempt: 2,
        at: new Date(at.getTime() + 30_000),
        statusCode: 503,
        durationMs: 87,
        responseBody: '<script>alert("x")</script> busy',
        reason: "receiver answered 503",
      },
    ]);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  test("the endpoint's log links each delivery to its page: each attempt's time, status, duration, reason, the answer as text", async () => {
    const log = await clients.owner.get(`/app/webhook-endpoints/${endpointId}`);
    expect(log.text).toContain(`href="/app/webhook-deliveries/${deliveryId}"`);
    const page = await clients.owner.get(`/app/webhook-deliveries/${deliveryId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("10001 ms");
    expect(page.text).toContain("timed out after 10 s");
    expect(page.text).toContain("<td>503</td>");
    expect(page.text).toContain("87 ms");
    expect(page.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; busy");
    expect(page.text).not.toContain("<script>alert");
    expect(page.text).not.toContain("whsec_");
  });

  for (const role of MEMBER_ROLES) {
    const allowed = table.get("endpoint.create")![role];
    test(`${role}: the attempt details are ${allowed ? "shown" : "403"}`, async () => {
      const page = await clients[role].get(`/app/webhook-deliveries/${deliveryId}`);
      expect(page.status).toBe(allowed ? 200 : 403);
      if (!allowed) expect(page.text).not.toContain("busy");
    });
  }

  test("another organization's owner and unknown ids: 404", async () => {
    const other = await orgWithMembers(h, "attempts-other", 0);
    const stranger = await h.signedIn(other.members.owner);
    const page = await stranger.get(`/app/webhook-deliveries/${deliveryId}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain("busy");
    expect((await stranger.get(`/app/webhook-deliveries/${newId()}`)).status).toBe(404);
    expect((await stranger.get("/app/webhook-deliveries/nope")).status).toBe(404);
  });
});
