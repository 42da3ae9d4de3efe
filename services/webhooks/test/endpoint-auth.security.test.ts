import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookEndpoints } from "@newsroom/shared/db/schema";
import type { ServiceHandle } from "@newsroom/shared/service";
import { insertOrganization } from "@newsroom/shared/testing/builders";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createWebhooksService } from "../src/app.ts";
import { type Fixture, internalCall, random, webhooksFixture } from "./support/harness.ts";

/**
 * Authentication beyond the signature: a bearer token, custom headers (never the signature's),
 * and OAuth 2.0 client credentials against a token server on 127.0.0.1 (token reused, asked for
 * again before it expires, a refusal counted as a failed attempt). Credentials are sealed at
 * rest and never in the record.
 */
let fx: Fixture;
let receiver: Receiver;
let service: ServiceHandle;
let slug: string;

/** A token server: answers tokens `t1`, `t2`, ... living `lifetimeS`, or refuses. */
const tokenServer = {
  requests: [] as { authorization: string | null; body: string }[],
  lifetimeS: 2,
  refuse: false,
  server: null as ReturnType<typeof Bun.serve> | null,
  url(path = "/token") {
    return `http://127.0.0.1:${this.server!.port}${path}`;
  },
};

beforeAll(async () => {
  fx = await webhooksFixture({ env: { WEBHOOK_RETRY_SCHEDULE: "0.05" } });
  receiver = startReceiver();
  tokenServer.server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      tokenServer.requests.push({
        authorization: request.headers.get("authorization"),
        body: await request.text(),
      });
      if (tokenServer.refuse) return Response.json({ error: "invalid_client" }, { status: 401 });
      return Response.json({
        access_token: `t${tokenServer.requests.length}`,
        token_type: "Bearer",
        expires_in: tokenServer.lifetimeS,
      });
    },
  });
  service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 20 });
  slug = `auth-${random()}`;
  await insertOrganization(fx.db, { slug, name: "Auth" });
});

afterAll(async () => {
  await service.stop();
  tokenServer.server?.stop(true);
  receiver.stop();
  await fx.close();
});

const create = (body: Record<string, unknown>) =>
  internalCall(service, fx, "POST", `/orgs/${slug}/webhook-endpoints`, {
    events: ["story.submitted"],
    ...body,
  });

async function sealedRow(id: string) {
  const [row] = await fx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row!;
}

describe("endpoint authentication", () => {
  test("bearer: every request carries the token; the record shows auth_type only", async () => {
    const created = await create({
      url: receiver.url("/bearer"),
      auth: { type: "bearer", token: "s3cr3t-bearer-token" },
    });
    expect(created.status).toBe(201);
    expect(created.body.auth_type).toBe("bearer");
    expect(JSON.stringify(created.body)).not.toContain("s3cr3t-bearer-token");
    const listed = await internalCall(service, fx, "GET", `/orgs/${slug}/webhook-endpoints`);
    expect(JSON.stringify(listed.body)).not.toContain("s3cr3t-bearer-token");
    const row = await sealedRow(created.body.id);
    expect(row.authType).toBe("bearer");
    expect(row.authCiphertext).not.toContain("s3cr3t");

    const org = row.organizationId;
    await fx.submitted(org);
    const [hit] = await eventually(
      () => (receiver.at("/bearer").length > 0 ? receiver.at("/bearer") : null),
      { message: "the delivery" },
    );
    expect(hit!.headers.get("authorization")).toBe("Bearer s3cr3t-bearer-token");
    // The signature still verifies.
    const headers: Record<string, string> = {};
    hit!.headers.forEach((value, name) => {
      headers[name] = value;
    });
    expect(() => new Webhook(created.body.secret).verify(hit!.body, headers)).not.toThrow();
  });

  test("headers: sent beside the signature's; the signature's and content-type are refused", async () => {
    for (const name of ["webhook-signature", "Webhook-Id", "webhook-timestamp", "Content-Type"]) {
      const refused = await create({
        url: receiver.url("/headers"),
        auth: { type: "headers", headers: { [name]: "forged" } },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.fields).toEqual([
        expect.objectContaining({ field: `auth.headers.${name}`, reason: "reserved_header" }),
      ]);
    }
    const injected = await create({
      url: receiver.url("/headers"),
      auth: { type: "headers", headers: { "x-api-key": "a\r\nx-evil: 1" } },
    });
    expect(injected.status).toBe(422);

    const created = await create({
      url: receiver.url("/headers"),
      auth: { type: "headers", headers: { "X-Api-Key": "k-123", "X-Tenant": "acme" } },
    });
    expect(created.status).toBe(201);
    expect(created.body.auth_type).toBe("headers");
    await fx.submitted((await sealedRow(created.body.id)).organizationId);
    const [hit] = await eventually(
      () => (receiver.at("/headers").length > 0 ? receiver.at("/headers") : null),
      { message: "the delivery" },
    );
    expect(hit!.headers.get("x-api-key")).toBe("k-123");
    expect(hit!.headers.get("x-tenant")).toBe("acme");
    expect(hit!.headers.get("content-type")).toBe("application/json");
    expect(hit!.headers.get("webhook-signature")).toMatch(/^v1,/);
  });

  test("OAuth client credentials: one token reused, asked for again before it expires", async () => {
    tokenServer.requests.length = 0;
    tokenServer.refuse = false;
    tokenServer.lifetimeS = 2;
    const created = await create({
      url: receiver.url("/oauth"),
      auth: {
        type: "oauth2_client_credentials",
        token_url: tokenServer.url(),
        client_id: "client-1",
        client_secret: "very-secret",
        scope: "webhooks:write",
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.auth_type).toBe("oauth2_client_credentials");
    expect(JSON.stringify(created.body)).not.toContain("very-secret");
    const org = (await sealedRow(created.body.id)).organizationId;

    await fx.submitted(org);
    await fx.submitted(org);
    await eventually(() => receiver.at("/oauth").length === 2, { message: "two deliveries" });
    expect(receiver.at("/oauth").map((hit) => hit.headers.get("authorization"))).toEqual([
      "Bearer t1",
      "Bearer t1",
    ]);
    expect(tokenServer.requests).toHaveLength(1);
    const [asked] = tokenServer.requests;
    expect(asked!.authorization).toBe(`Basic ${btoa("client-1:very-secret")}`);
    expect(new URLSearchParams(asked!.body).get("grant_type")).toBe("client_credentials");
    expect(new URLSearchParams(asked!.body).get("scope")).toBe("webhooks:write");

    // A 2 s token is refreshed a tenth of its life before it ends: after 1.8 s a new one.
    await Bun.sleep(2_000);
    await fx.submitted(org);
    await eventually(() => receiver.at("/oauth").length === 3, { message: "a third delivery" });
    expect(receiver.at("/oauth")[2]!.headers.get("authorization")).toBe("Bearer t2");
    expect(tokenServer.requests).toHaveLength(2);
  }, 20_000);

  test("refused credentials: failed attempts saying so, nothing sent to the receiver", async () => {
    tokenServer.refuse = true;
    const created = await create({
      url: receiver.url("/refused"),
      auth: {
        type: "oauth2_client_credentials",
        token_url: tokenServer.url(),
        client_id: "client-2",
        client_secret: "wrong",
      },
    });
    const { eventId } = await fx.submitted((await sealedRow(created.body.id)).organizationId);
    const delivery = await eventually(
      async () => {
        const row = await fx.delivery(created.body.id, eventId);
        return row?.status === "failed" ? row : null;
      },
      { message: "the delivery to fail" },
    );
    expect(delivery).toMatchObject({
      attempts: 2,
      lastStatusCode: null,
      lastError: "OAuth token request refused: the token endpoint answered 401",
    });
    expect(receiver.at("/refused")).toHaveLength(0);
    tokenServer.refuse = false;
  });

  test("a token URL the endpoint rules refuse is 422 naming auth.token_url", async () => {
    const refused = await create({
      url: receiver.url("/x"),
      auth: {
        type: "oauth2_client_credentials",
        token_url: "http://10.0.0.5/token",
        client_id: "c",
        client_secret: "s",
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.fields[0].field).toBe("auth.token_url");
  });
});
