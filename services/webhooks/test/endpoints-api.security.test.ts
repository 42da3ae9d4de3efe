import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import type { ServiceHandle } from "@newsroom/shared/service";
import { insertOrganization } from "@newsroom/shared/testing/builders";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { type Fixture, internalCall, webhooksFixture } from "./support/harness.ts";

/**
 * The internal API trusts ADMIN_TOKEN alone, and every lookup is scoped by the organization in
 * the path: one organization's path cannot read or change another's endpoint or delivery.
 */
let fx: Fixture;
let service: ServiceHandle;
let orgA: { id: string; slug: string };
let orgB: { id: string; slug: string };
let endpointB: string;
let deliveryB: string;

beforeAll(async () => {
  fx = await webhooksFixture();
  service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 50 });
  const suffix = Math.random().toString(36).slice(2, 8);
  orgA = await insertOrganization(fx.db, { slug: `a-${suffix}`, name: "A" });
  orgB = await insertOrganization(fx.db, { slug: `b-${suffix}`, name: "B" });
  endpointB = (
    await internalCall(service, fx, "POST", `/orgs/${orgB.slug}/webhook-endpoints`, {
      url: "https://b.example.com/in",
      events: ["story.published"],
    })
  ).body.id;
  deliveryB = newId();
  await fx.db.insert(webhookDeliveries).values({
    id: deliveryB,
    organizationId: orgB.id,
    endpointId: endpointB,
    eventId: newId(),
    eventType: "story.published",
    eventCreatedAt: new Date(),
    status: "failed",
  });
});
afterAll(async () => {
  await service.stop();
  await fx.close();
});

describe("the internal API's token", () => {
  for (const token of [null, "wrong-token-of-sixteen-chars"]) {
    test(`${token ? "a wrong" : "no"} token: 401, nothing done`, async () => {
      const answer = await internalCall(
        service,
        fx,
        "POST",
        `/orgs/${orgB.slug}/webhook-endpoints/${endpointB}/disable`,
        undefined,
        token,
      );
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe("unauthorized");
      const [row] = await fx.db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, endpointB));
      expect(row!.status).toBe("enabled");
    });
  }
});

describe("organization A's path and B's endpoint", () => {
  const commands = [
    ["GET", `/webhook-endpoints/:e`],
    ["DELETE", `/webhook-endpoints/:e`],
    ["PATCH", `/webhook-endpoints/:e`],
    ["POST", `/webhook-endpoints/:e/disable`],
    ["POST", `/webhook-endpoints/:e/enable`],
    ["POST", `/webhook-endpoints/:e/rotate-secret`],
    ["POST", `/webhook-endpoints/:e/test`],
    ["POST", `/webhook-endpoints/:e/recover`],
    ["GET", `/webhook-endpoints/:e/deliveries`],
    ["GET", `/webhook-deliveries/:d`],
    ["GET", `/webhook-deliveries/:d/attempts`],
    ["POST", `/webhook-deliveries/:d/resend`],
  ] as const;
  for (const [method, path] of commands) {
    test(`${method} ${path}: 404, as for a missing one`, async () => {
      const answer = await internalCall(
        service,
        fx,
        method,
        `/orgs/${orgA.slug}${path.replace(":e", endpointB).replace(":d", deliveryB)}`,
        path.endsWith("/recover")
          ? { since: new Date().toISOString() }
          : method === "PATCH"
            ? { rate_limit_per_second: 1, ordering: "story" }
            : undefined,
      );
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
    });
  }

  test("B's endpoint and delivery are untouched, and A's list does not show them", async () => {
    const [endpoint] = await fx.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, endpointB));
    expect(endpoint).toMatchObject({
      status: "enabled",
      previousSecretCiphertext: null,
      rateLimitPerSecond: null,
      ordering: "none",
    });
    const [delivery] = await fx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, deliveryB));
    expect(delivery!.status).toBe("failed");
    const list = await internalCall(service, fx, "GET", `/orgs/${orgA.slug}/webhook-endpoints`);
    expect(list.body.data).toEqual([]);
  });
});
