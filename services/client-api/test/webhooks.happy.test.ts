import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { ListOf, WebhookDeliveryOut, WebhookEndpointOut } from "@newsroom/shared/records";
import { eq } from "drizzle-orm";
import { clientApiFixture, expectShape, type Fixture } from "./support/fixture.ts";

let f: Fixture;
beforeAll(async () => {
  f = await clientApiFixture();
});
afterAll(async () => {
  await f.close();
});

async function getList(
  path: string,
  schema: typeof WebhookEndpointOut | typeof WebhookDeliveryOut,
  key = f.a.key,
) {
  const response = await f.get(path, { key });
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("private, no-store");
  const text = await response.text();
  const body = JSON.parse(text);
  expectShape(ListOf(schema), body);
  return { body, text };
}

describe("GET /v1/webhook_endpoints", () => {
  test("every endpoint, enabled or not, newest first, one page, never the secret", async () => {
    await f.db
      .update(webhookEndpoints)
      .set({
        status: "disabled",
        disabledReason: "by_client",
        rateLimitPerSecond: 40,
        ordering: "story",
        updatedAt: new Date(),
      })
      .where(eq(webhookEndpoints.id, f.a.endpointIds[0]!));
    const { body, text } = await getList("/v1/webhook_endpoints", WebhookEndpointOut);
    expect(body.has_more).toBe(false);
    expect(body.next_cursor).toBeNull();
    expect(body.data.map((e: { id: string }) => e.id)).toEqual([...f.a.endpointIds].reverse());
    const [newest, oldest] = body.data;
    expect(newest).toMatchObject({
      object: "webhook_endpoint",
      url: "https://hooks.example.com/two",
      events: ["story.published", "story.submitted"],
      status: "enabled",
      disabled_reason: null,
    });
    expect(oldest).toMatchObject({
      status: "disabled",
      disabled_reason: "by_client",
      rate_limit_per_second: 40,
      ordering: "story",
    });
    expect(newest).toMatchObject({ rate_limit_per_second: null, ordering: "none" });
    const [stored] = await f.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, f.a.endpointIds[0]!));
    expect(oldest.secret_hint).toBe(stored!.secretHint);
    expect(oldest.secret_hint).toHaveLength(4);
    expect(oldest.previous_secret_expires_at).toBeNull();
    expect(text).not.toContain("whsec_");
    expect(text).not.toContain(stored!.secretCiphertext);
    expect(text).not.toContain("secret_ciphertext");
  });
});

describe("GET /v1/webhook_deliveries", () => {
  test("the delivery log, newest first, every field present", async () => {
    const { body } = await getList("/v1/webhook_deliveries", WebhookDeliveryOut);
    expect(body.data.map((d: { id: string }) => d.id)).toEqual([...f.a.deliveryIds].reverse());
    const delivered = body.data.find((d: { id: string }) => d.id === f.a.deliveryIds[0]);
    expect(delivered).toMatchObject({
      object: "webhook_delivery",
      endpoint_id: f.a.endpointIds[0],
      event_type: "story.published",
      story_id: f.a.decided,
      status: "delivered",
      attempts: 1,
      last_status_code: 200,
      last_duration_ms: null,
      last_error: null,
      next_attempt_at: null,
    });
    expect(delivered.delivered_at).toBeString();
    // The receivers' answers (attempt details) are for the workspace only.
    expect(Object.keys(delivered)).not.toContain("response_body");
    expect(Object.keys(delivered)).not.toContain("attempt_details");
    const pending = body.data.find((d: { id: string }) => d.id === f.a.deliveryIds[1]);
    expect(pending).toMatchObject({
      status: "pending",
      last_error: "HTTP 500",
      delivered_at: null,
    });
    expect(pending.next_attempt_at).toBeString();
  });

  test("filters by endpoint_id; another organization's endpoint matches nothing", async () => {
    const { body } = await getList(
      `/v1/webhook_deliveries?endpoint_id=${f.a.endpointIds[0]}`,
      WebhookDeliveryOut,
    );
    expect(body.data.map((d: { id: string }) => d.id)).toEqual([
      f.a.deliveryIds[2],
      f.a.deliveryIds[0],
    ]);
    const upper = await getList(
      `/v1/webhook_deliveries?endpoint_id=${f.a.endpointIds[1]!.toUpperCase()}`,
      WebhookDeliveryOut,
    );
    expect(upper.body.data.map((d: { id: string }) => d.id)).toEqual([f.a.deliveryIds[1]]);
    const other = await getList(
      `/v1/webhook_deliveries?endpoint_id=${f.b.endpointIds[0]}`,
      WebhookDeliveryOut,
    );
    expect(other.body.data).toEqual([]);
  });

  test("pages newest first without skipping deliveries written during the walk", async () => {
    const endpointId = f.b.endpointIds[1]!;
    const base = Date.now() - 60_000;
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = newId();
      ids.push(id);
      await f.db.insert(webhookDeliveries).values({
        id,
        organizationId: f.b.id,
        endpointId,
        eventId: newId(),
        eventType: "story.submitted",
        storyId: null,
        eventCreatedAt: new Date(base),
        createdAt: new Date(base + Math.floor(i / 3) * 1000),
      });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const path = `/v1/webhook_deliveries?endpoint_id=${endpointId}&limit=7${cursor ? `&cursor=${cursor}` : ""}`;
      const { body } = await getList(path, WebhookDeliveryOut, f.b.key);
      seen.push(...body.data.map((d: { id: string }) => d.id));
      cursor = body.next_cursor;
      // A newer delivery arriving mid-walk lands before the cursor and changes nothing after it.
      await f.db.insert(webhookDeliveries).values({
        id: newId(),
        organizationId: f.b.id,
        endpointId,
        eventId: newId(),
        eventType: "story.published",
        eventCreatedAt: new Date(),
      });
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of ids) expect(seen).toContain(id);
    const onePage = await getList(
      `/v1/webhook_deliveries?endpoint_id=${endpointId}&limit=1`,
      WebhookDeliveryOut,
      f.b.key,
    );
    expect(onePage.body.has_more).toBe(true);
  });

  test("the endpoint list and the log stay readable while the newsroom is not running", async () => {
    const endpoints = await getList("/v1/webhook_endpoints", WebhookEndpointOut, f.idle.key);
    expect(endpoints.body.data).toHaveLength(2);
    const deliveries = await getList("/v1/webhook_deliveries", WebhookDeliveryOut, f.idle.key);
    expect(deliveries.body.data).toHaveLength(3);
  });
});

describe("400 on the delivery log", () => {
  test("a malformed endpoint_id, limit and cursor are each named", async () => {
    const response = await f.get("/v1/webhook_deliveries?endpoint_id=nope&limit=500&cursor=%21", {
      key: f.a.key,
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe("invalid_parameters");
    expect(body.error.fields.map((x: { field: string }) => x.field).sort()).toEqual([
      "cursor",
      "endpoint_id",
      "limit",
    ]);
  });
});
