import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { secretsKey } from "@newsroom/shared/config";
import { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { open } from "@newsroom/shared/secret-box";
import type { ServiceHandle } from "@newsroom/shared/service";
import { insertOrganization } from "@newsroom/shared/testing/builders";
import { signPayload } from "@newsroom/shared/webhook-signature";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { type Fixture, internalCall, webhooksFixture } from "./support/harness.ts";

/** The internal API the workspace sends endpoint commands to: what each command changes. */
let fx: Fixture;
let service: ServiceHandle;
let slug: string;

beforeAll(async () => {
  fx = await webhooksFixture();
  service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 50 });
  slug = `api-${Math.random().toString(36).slice(2, 8)}`;
  await insertOrganization(fx.db, { slug, name: "Api" });
});
afterAll(async () => {
  await service.stop();
  await fx.close();
});

const call = (method: string, path: string, body?: unknown) =>
  internalCall(service, fx, method, `/orgs/${slug}${path}`, body);

async function row(id: string) {
  const [found] = await fx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return found;
}

describe("endpoint commands", () => {
  test("create: 201, the secret once, sealed at rest; listed and read without it", async () => {
    const created = await call("POST", "/webhook-endpoints", {
      url: "https://hooks.example.com/in",
      events: ["story.published", "story.approved"],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: "webhook_endpoint",
      url: "https://hooks.example.com/in",
      events: ["story.published", "story.approved"],
      status: "enabled",
    });
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.secret_hint).toBe(secret.slice(-4));
    expect(open((await row(created.body.id))!.secretCiphertext, secretsKey(fx.config))).toBe(
      secret,
    );
    const list = await call("GET", "/webhook-endpoints");
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(secret.slice(6));
    const one = await call("GET", `/webhook-endpoints/${created.body.id}`);
    expect(one.body).not.toHaveProperty("secret");
    expect(one.body.id).toBe(created.body.id);
    // Options left out read as null: no name, every topic, no rate; ordering none.
    expect(one.body).toMatchObject({
      name: null,
      topics: null,
      rate_limit_per_second: null,
      ordering: "none",
    });
  });

  test("create with a rate and story ordering: the record and the list show both", async () => {
    const created = await call("POST", "/webhook-endpoints", {
      url: "https://hooks.example.com/paced",
      events: ["story.published"],
      rate_limit_per_second: 20,
      ordering: "story",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ rate_limit_per_second: 20, ordering: "story" });
    const one = await call("GET", `/webhook-endpoints/${created.body.id}`);
    expect(one.body).toMatchObject({ rate_limit_per_second: 20, ordering: "story" });
    const list = await call("GET", "/webhook-endpoints");
    const listed = list.body.data.find((e: { id: string }) => e.id === created.body.id);
    expect(listed).toMatchObject({ rate_limit_per_second: 20, ordering: "story" });
  });

  test("change the rate and the ordering later: the record shows them; the rest is unchanged", async () => {
    const created = await call("POST", "/webhook-endpoints", {
      url: "https://hooks.example.com/later",
      events: ["story.published"],
      name: "Later",
    });
    const id = created.body.id;
    const paced = await call("PATCH", `/webhook-endpoints/${id}`, { rate_limit_per_second: 50 });
    expect(paced.status).toBe(200);
    expect(paced.body).toMatchObject({
      rate_limit_per_second: 50,
      ordering: "none",
      name: "Later",
    });
    const ordered = await call("PATCH", `/webhook-endpoints/${id}`, { ordering: "story" });
    expect(ordered.body).toMatchObject({ rate_limit_per_second: 50, ordering: "story" });
    const unpaced = await call("PATCH", `/webhook-endpoints/${id}`, {
      rate_limit_per_second: null,
    });
    expect(unpaced.body).toMatchObject({ rate_limit_per_second: null, ordering: "story" });
    expect(await row(id)).toMatchObject({ rateLimitPerSecond: null, ordering: "story" });
    expect(Date.parse(unpaced.body.updated_at)).toBeGreaterThanOrEqual(
      Date.parse(created.body.updated_at),
    );

    const nothing = await call("PATCH", `/webhook-endpoints/${id}`, {});
    expect(nothing.status).toBe(422);
    const tooFast = await call("PATCH", `/webhook-endpoints/${id}`, { rate_limit_per_second: 0 });
    expect(tooFast.status).toBe(422);
    expect(tooFast.body.error.fields.map((f: { field: string }) => f.field)).toContain(
      "rate_limit_per_second",
    );
    const missing = await call("PATCH", `/webhook-endpoints/${newId()}`, { ordering: "none" });
    expect(missing.status).toBe(404);
    await call("DELETE", `/webhook-endpoints/${id}`);
  });

  test("a rate outside 1..1000 or not whole, or an unknown ordering, is 422 naming the field", async () => {
    for (const [field, value] of [
      ["rate_limit_per_second", 0],
      ["rate_limit_per_second", 1001],
      ["rate_limit_per_second", 2.5],
      ["rate_limit_per_second", "10"],
      ["ordering", "time"],
      ["ordering", null],
    ] as const) {
      const refused = await call("POST", "/webhook-endpoints", {
        url: "https://hooks.example.com/in",
        events: ["story.published"],
        [field]: value,
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe("validation_failed");
      expect(refused.body.error.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    // The bounds themselves and null are accepted.
    for (const rate of [1, 1000, null]) {
      const accepted = await call("POST", "/webhook-endpoints", {
        url: "https://hooks.example.com/bounds",
        events: ["story.published"],
        rate_limit_per_second: rate,
      });
      expect(accepted.status).toBe(201);
      expect(accepted.body.rate_limit_per_second).toBe(rate);
      await call("DELETE", `/webhook-endpoints/${accepted.body.id}`);
    }
  });

  test("create with a name and topics: the record shows both", async () => {
    const created = await call("POST", "/webhook-endpoints", {
      url: "https://hooks.example.com/named",
      events: ["story.published"],
      name: "Search index",
      topics: ["climate", "energy"],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Search index", topics: ["climate", "energy"] });
    const one = await call("GET", `/webhook-endpoints/${created.body.id}`);
    expect(one.body).toMatchObject({ name: "Search index", topics: ["climate", "energy"] });
  });

  test("disable, enable (the failure count starts again), rotate and delete", async () => {
    const { id } = (
      await call("POST", "/webhook-endpoints", {
        url: "https://toggle.example.com/in",
        events: ["story.published"],
      })
    ).body;
    await fx.db
      .update(webhookEndpoints)
      .set({ consecutiveFailures: 2 })
      .where(eq(webhookEndpoints.id, id));
    const disabled = await call("POST", `/webhook-endpoints/${id}/disable`);
    expect(disabled.body).toMatchObject({ status: "disabled", disabled_reason: "by_client" });
    const enabled = await call("POST", `/webhook-endpoints/${id}/enable`);
    expect(enabled.body).toMatchObject({ status: "enabled", disabled_reason: null });
    expect((await row(id))!.consecutiveFailures).toBe(0);

    const before = (await row(id))!.secretCiphertext;
    const rotated = await call("POST", `/webhook-endpoints/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret_hint).toBe(rotated.body.secret.slice(-4));
    expect(rotated.body.previous_secret_expires_at).not.toBeNull();
    expect((await row(id))!.previousSecretCiphertext).toBe(before);

    await fx.db.insert(webhookDeliveries).values({
      id: newId(),
      organizationId: (await row(id))!.organizationId,
      endpointId: id,
      eventId: newId(),
      eventType: "story.published",
      eventCreatedAt: new Date(),
      status: "failed",
    });
    expect((await call("GET", `/webhook-endpoints/${id}/deliveries`)).body.data).toHaveLength(1);
    const deleted = await call("DELETE", `/webhook-endpoints/${id}`);
    expect(deleted.body.id).toBe(id);
    expect(await row(id)).toBeUndefined();
    expect(await fx.deliveriesOf(id)).toHaveLength(0);
    expect((await call("GET", `/webhook-endpoints/${id}`)).status).toBe(404);
  });

  test("a pasted request is checked with the endpoint's secrets, which never leave", async () => {
    const created = await call("POST", "/webhook-endpoints", {
      url: "https://verify.example.com/in",
      events: ["story.published"],
    });
    const body = JSON.stringify({ id: "evt", type: "story.published" });
    const now = Math.floor(Date.now() / 1000);
    const signature = signPayload(created.body.secret, "msg_1", now, body);
    const headers = `webhook-id: msg_1\nwebhook-timestamp: ${now}\nwebhook-signature: ${signature}`;
    const path = `/webhook-endpoints/${created.body.id}/verify-signature`;
    expect((await call("POST", path, { headers, body })).body).toEqual({ kind: "valid" });
    const reEncoded = await call("POST", path, {
      headers,
      body: JSON.stringify(JSON.parse(body), null, 2),
    });
    expect(reEncoded.body).toEqual({ kind: "body_re_encoded" });
    const wrong = await call("POST", path, { headers, body: '{"id":"other"}' });
    expect(wrong.body).toEqual({ kind: "wrong_secret" });
  });
});

describe("endpoint commands refused", () => {
  for (const [url, reason] of [
    ["http://hooks.example.com/in", "https_required"],
    ["https://203.0.113.7/in", "ip_address_not_allowed"],
    ["https://printer.local/in", "private_host"],
    ["https://hooks.example.com:8443/in", "port_not_allowed"],
    ["not a url", "invalid_url"],
  ] as const) {
    test(`${url}: 422 naming the url field (${reason})`, async () => {
      const refused = await call("POST", "/webhook-endpoints", {
        url,
        events: ["story.published"],
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe("validation_failed");
      expect(refused.body.error.fields).toEqual([
        expect.objectContaining({ field: "url", reason }),
      ]);
    });
  }

  test("a name over 100 characters or an empty topic list is 422", async () => {
    for (const body of [
      { name: "n".repeat(101) },
      { name: "" },
      { topics: [] },
      { topics: ["climate", "climate"] },
    ]) {
      const refused = await call("POST", "/webhook-endpoints", {
        url: "https://hooks.example.com/in",
        events: ["story.published"],
        ...body,
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe("validation_failed");
    }
  });

  test("an unknown organization and an unknown endpoint are 404", async () => {
    const unknownOrg = await internalCall(service, fx, "GET", "/orgs/nobody/webhook-endpoints");
    expect(unknownOrg.status).toBe(404);
    expect((await call("POST", `/webhook-endpoints/${newId()}/disable`)).status).toBe(404);
    expect((await call("POST", "/webhook-endpoints/not-an-id/enable")).status).toBe(404);
  });

  test("recovery reaches back at most 14 days, naming `since`", async () => {
    const { id } = (
      await call("POST", "/webhook-endpoints", {
        url: "https://recover.example.com/in",
        events: ["story.published"],
      })
    ).body;
    const old = new Date(Date.now() - 15 * 86_400_000).toISOString();
    const refused = await call("POST", `/webhook-endpoints/${id}/recover`, { since: old });
    expect(refused.status).toBe(422);
    expect(refused.body.error.fields).toEqual([
      expect.objectContaining({ field: "since", reason: "too_old" }),
    ]);
    const malformed = await call("POST", `/webhook-endpoints/${id}/recover`, { since: "soon" });
    expect(malformed.body.error.fields[0]).toMatchObject({ field: "since", reason: "invalid" });
  });
});
