import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cmsConnections } from "@newsroom/shared/db/schema";
import type { ServiceHandle } from "@newsroom/shared/service";
import { insertOrganization } from "@newsroom/shared/testing/builders";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { type Fixture, internalCall, webhooksFixture } from "./support/harness.ts";

/**
 * CMS connections through the internal API: each field checked (422 naming it), the webhook
 * endpoints' URL rules (no private, loopback or IP-literal targets outside the development
 * switch, and a name that resolves inside the network refused at the check), the credential
 * sealed and in no answer, and one organization's path never reaching another's connection.
 */
const PASSWORD = "abcd EFGH ijkl MNOP qrst UVWX";
const GHOST_KEY = `${"a1".repeat(12)}:${"b2".repeat(32)}`;

let fx: Fixture;
let strict: Fixture;
let service: ServiceHandle;
let strictService: ServiceHandle;
let orgA: { id: string; slug: string };
let orgB: { id: string; slug: string };
let connectionB = "";

beforeAll(async () => {
  [fx, strict] = await Promise.all([
    webhooksFixture(),
    webhooksFixture({ env: { WEBHOOK_ALLOW_INSECURE_TARGETS: "false" } }),
  ]);
  service = await createWebhooksService(fx.runtime(), {
    pollIntervalMs: 50,
    // Every name leads inside the network.
    resolveHost: async () => ["10.1.2.3"],
  });
  strictService = await createWebhooksService(
    strict.runtime({ WEBHOOK_ALLOW_INSECURE_TARGETS: "false" }),
    { pollIntervalMs: 50 },
  );
  const suffix = Math.random().toString(36).slice(2, 8);
  orgA = await insertOrganization(fx.db, { slug: `a-${suffix}`, name: "A" });
  orgB = await insertOrganization(fx.db, { slug: `b-${suffix}`, name: "B" });
  const created = await internalCall(service, fx, "POST", `/orgs/${orgB.slug}/cms-connections`, {
    kind: "wordpress",
    url: "https://news.example.com",
    username: "editor",
    application_password: PASSWORD,
  });
  expect(created.status).toBe(201);
  connectionB = created.body.id;
});

afterAll(async () => {
  await service?.stop();
  await strictService?.stop();
  await fx?.close();
  await strict?.close();
});

describe("creating a connection", () => {
  test("missing fields: 422 naming each", async () => {
    const answer = await internalCall(service, fx, "POST", `/orgs/${orgA.slug}/cms-connections`, {
      kind: "wordpress",
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe("validation_failed");
    const fields = answer.body.error.fields.map((f: { field: string }) => f.field).sort();
    expect(fields).toEqual(["application_password", "url", "username"]);
  });

  test("an unknown kind and a malformed Ghost key: 422", async () => {
    const kind = await internalCall(service, fx, "POST", `/orgs/${orgA.slug}/cms-connections`, {
      kind: "drupal",
      url: "https://news.example.com",
    });
    expect(kind.status).toBe(422);
    expect(kind.body.error.fields[0].field).toBe("kind");
    const ghost = await internalCall(service, fx, "POST", `/orgs/${orgA.slug}/cms-connections`, {
      kind: "ghost",
      url: "https://news.example.com",
      admin_api_key: "not-a-key",
    });
    expect(ghost.status).toBe(422);
    expect(ghost.body.error.fields[0]).toMatchObject({ field: "admin_api_key", reason: "invalid" });
    const good = await internalCall(service, fx, "POST", `/orgs/${orgA.slug}/cms-connections`, {
      kind: "ghost",
      url: "https://news.example.com",
      admin_api_key: GHOST_KEY,
    });
    expect(good.status).toBe(201);
    expect(JSON.stringify(good.body)).not.toContain(GHOST_KEY.split(":")[1]);
  });

  for (const [url, reason] of [
    ["http://news.example.com", "https_required"],
    ["https://10.0.0.5", "ip_address_not_allowed"],
    ["https://wp.internal", "private_host"],
    ["https://news.example.com:8443", "port_not_allowed"],
    ["https://user:pw@news.example.com", "credentials_in_url"],
    ["http://127.0.0.1:8080", "https_required"],
  ] as const) {
    test(`${url}: refused (${reason})`, async () => {
      const answer = await internalCall(
        strictService,
        strict,
        "POST",
        `/orgs/${strict.orgId}/cms-connections`,
        { kind: "wordpress", url, username: "editor", application_password: PASSWORD },
      );
      expect(answer.status).toBe(422);
      expect(answer.body.error.fields[0]).toMatchObject({ field: "url", reason });
    });
  }

  test("a public name that resolves to a private address: the check refuses to call it", async () => {
    const answer = await internalCall(
      service,
      fx,
      "POST",
      `/orgs/${orgB.slug}/cms-connections/${connectionB}/check`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.ok).toBe(false);
    expect(answer.body.problem).toBe("unreachable");
    expect(answer.body.message).toBe(
      "The site's host name leads to a private address, which is not allowed.",
    );
    expect(answer.body.message).not.toContain("10.1.2.3");
  });
});

describe("the credential", () => {
  test("is sealed at rest and in no answer", async () => {
    const [row] = await fx.db
      .select()
      .from(cmsConnections)
      .where(eq(cmsConnections.id, connectionB));
    expect(row!.credentialCiphertext).not.toContain(PASSWORD);
    expect(row!.credentialCiphertext).not.toContain("editor");
    const answers = [
      await internalCall(service, fx, "GET", `/orgs/${orgB.slug}/cms-connections`),
      await internalCall(service, fx, "GET", `/orgs/${orgB.slug}/cms-connections/${connectionB}`),
      await internalCall(
        service,
        fx,
        "PATCH",
        `/orgs/${orgB.slug}/cms-connections/${connectionB}`,
        {
          enabled: false,
        },
      ),
      await internalCall(
        service,
        fx,
        "POST",
        `/orgs/${orgB.slug}/cms-connections/${connectionB}/check`,
      ),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const text = JSON.stringify(answer.body);
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(PASSWORD.replace(/ /g, ""));
      expect(text).not.toContain("application_password");
      expect(text).not.toContain("ciphertext");
    }
  });
});

describe("another organization's connection", () => {
  test("is 404 for every route, and nothing changes", async () => {
    const base = `/orgs/${orgA.slug}/cms-connections/${connectionB}`;
    for (const [method, path, body] of [
      ["GET", base, undefined],
      ["PATCH", base, { unpublish_mode: "trash" }],
      ["POST", `${base}/check`, undefined],
      ["DELETE", base, undefined],
    ] as const) {
      const answer = await internalCall(service, fx, method, path, body);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
    }
    const list = await internalCall(service, fx, "GET", `/orgs/${orgA.slug}/cms-connections`);
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(connectionB);
    const [row] = await fx.db
      .select()
      .from(cmsConnections)
      .where(eq(cmsConnections.id, connectionB));
    expect(row!.unpublishMode).toBe("draft");
  });

  test("no token: 401", async () => {
    const answer = await internalCall(
      service,
      fx,
      "GET",
      `/orgs/${orgB.slug}/cms-connections`,
      undefined,
      null,
    );
    expect(answer.status).toBe(401);
  });
});
