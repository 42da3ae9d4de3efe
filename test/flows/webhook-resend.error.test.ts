import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookAttempts, webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { eq } from "drizzle-orm";
import { cliAgainst } from "../../services/workspace/test/support/cli.ts";
import { endpointsHarness, type Harness } from "./support/endpoints.ts";

/** The internal API's resend and recover: what they refuse, and what they change. */
let h: Harness;
let orgId: string;
let endpointId: string;

beforeAll(async () => {
  h = await endpointsHarness({ allowInsecureTargets: true });
  orgId = (await h.call("POST", "/orgs", { slug: "resends", name: "Resends" })).body.id;
  endpointId = (
    await h.call("POST", "/orgs/resends/webhook_endpoints", {
      url: "http://127.0.0.1:9/hooks",
      events: ["story.published"],
    })
  ).body.id;
});
afterAll(() => h.close());

async function delivery(status: "pending" | "delivered" | "failed", createdAt = new Date()) {
  const id = newId();
  await h.database.db.insert(webhookDeliveries).values({
    id,
    organizationId: orgId,
    endpointId,
    eventId: newId(),
    eventType: "story.published",
    status,
    attempts: status === "pending" ? 0 : 8,
    lastStatusCode: status === "failed" ? 500 : 200,
    lastError: status === "failed" ? "status 500" : null,
    eventCreatedAt: createdAt,
    createdAt,
  });
  return id;
}

async function statusOf(id: string) {
  const [row] = await h.database.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, id));
  return row!;
}

describe("POST /internal/v1/webhook_deliveries/{id}/resend", () => {
  test("a failed delivery is pending again, attempts 0, same event id", async () => {
    const id = await delivery("failed");
    const before = await statusOf(id);
    const answer = await h.call("POST", `/webhook_deliveries/${id}/resend`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      object: "webhook_delivery",
      id,
      event_id: before.eventId,
      status: "pending",
      attempts: 0,
      last_status_code: null,
      last_error: null,
    });
  });

  test("a pending delivery answers 409 and is not touched; unknown ids 404; no token 401", async () => {
    const id = await delivery("pending");
    expect((await h.call("POST", `/webhook_deliveries/${id}/resend`)).status).toBe(409);
    expect((await h.call("POST", `/webhook_deliveries/${newId()}/resend`)).status).toBe(404);
    expect((await h.call("POST", "/webhook_deliveries/nope/resend")).status).toBe(404);
    const failed = await delivery("failed");
    expect(
      (await h.call("POST", `/webhook_deliveries/${failed}/resend`, undefined, null)).status,
    ).toBe(401);
    expect((await statusOf(failed)).status).toBe("failed");
  });
});

describe("GET /internal/v1/webhook_deliveries/{id}/attempts", () => {
  test("each attempt with its time, status, duration, answer prefix and reason; unknown ids 404", async () => {
    const id = await delivery("failed");
    const at = new Date();
    await h.database.db.insert(webhookAttempts).values({
      id: newId(),
      organizationId: orgId,
      deliveryId: id,
      attempt: 1,
      at,
      statusCode: 503,
      durationMs: 31,
      responseBody: "busy",
      reason: "receiver answered 503",
    });
    const answer = await h.call("GET", `/webhook_deliveries/${id}/attempts`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([
      {
        object: "webhook_attempt",
        delivery_id: id,
        attempt: 1,
        at: at.toISOString(),
        status_code: 503,
        duration_ms: 31,
        response_body: "busy",
        reason: "receiver answered 503",
        in_flight: false,
      },
    ]);
    expect((await h.call("GET", `/webhook_deliveries/${newId()}/attempts`)).status).toBe(404);
    expect(
      (await h.call("GET", `/webhook_deliveries/${id}/attempts`, undefined, null)).status,
    ).toBe(401);
  });
});

describe("POST /internal/v1/webhook_endpoints/{id}/recover", () => {
  test("since older than 14 days, missing or malformed answers 422 naming since", async () => {
    const old = new Date(Date.now() - 15 * 86_400_000).toISOString();
    for (const body of [{ since: old }, {}, { since: "yesterday" }]) {
      const answer = await h.call("POST", `/webhook_endpoints/${endpointId}/recover`, body);
      expect(answer.status).toBe(422);
      expect(answer.body.error.fields[0].field).toBe("since");
    }
  });

  test("a disabled endpoint answers 409; once enabled, the failed deliveries since are resent, once", async () => {
    const recent = await delivery("failed", new Date(Date.now() - 3_600_000));
    const older = await delivery("failed", new Date(Date.now() - 3 * 86_400_000));
    const delivered = await delivery("delivered", new Date(Date.now() - 60_000));
    const since = new Date(Date.now() - 86_400_000).toISOString();
    await h.call("POST", `/webhook_endpoints/${endpointId}/disable`);
    const refused = await h.call("POST", `/webhook_endpoints/${endpointId}/recover`, { since });
    expect(refused.status).toBe(409);
    expect((await statusOf(recent)).status).toBe("failed");

    await h.call("POST", `/webhook_endpoints/${endpointId}/enable`);
    const first = await h.call("POST", `/webhook_endpoints/${endpointId}/recover`, { since });
    expect(first.status).toBe(200);
    expect(first.body.resent).toBeGreaterThanOrEqual(1);
    expect((await statusOf(recent)).status).toBe("pending");
    expect((await statusOf(older)).status).toBe("failed");
    expect((await statusOf(delivered)).status).toBe("delivered");
    const again = await h.call("POST", `/webhook_endpoints/${endpointId}/recover`, { since });
    expect(again.body.resent).toBe(0);
  });
});

describe("npm run admin", () => {
  test("delivery-resend, delivery-attempts and endpoint-recover --since call the same routes", async () => {
    const cli = cliAgainst(h);
    try {
      const id = await delivery("failed");
      const resent = await cli.admin("delivery-resend", id);
      expect(resent.code).toBe(0);
      expect(resent.json()).toMatchObject({ id, status: "pending", attempts: 0 });
      const attempts = await cli.admin("delivery-attempts", id);
      expect(attempts.json()).toMatchObject({ object: "list" });
      const tooOld = new Date(Date.now() - 15 * 86_400_000).toISOString();
      const refused = await cli.admin("endpoint-recover", endpointId, "--since", tooOld);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout + refused.stderr).toContain("since");
      const since = new Date(Date.now() - 86_400_000).toISOString();
      const recovered = await cli.admin("endpoint-recover", endpointId, "--since", since);
      expect(recovered.code).toBe(0);
      expect(recovered.json()).toMatchObject({ endpoint_id: endpointId, resent: 0 });
    } finally {
      cli.stop();
    }
  });
});
