import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashKey } from "@newsroom/shared/api-keys";
import { apiKeys, auditEvents, webhookEndpoints } from "@newsroom/shared/db/schema";
import { open } from "@newsroom/shared/secret-box";
import { eq } from "drizzle-orm";
import { type Harness, SECRETS_KEY, workspaceHarness } from "./support/harness.ts";

const KEY = { environment: "test", scopes: ["stories:read", "feed:read"], lifetime_days: 90 };

describe("API keys", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness();
    await h.call("POST", "/orgs", { slug: "keys", name: "Keys" });
  });
  afterAll(() => h.close());

  test("the secret is shown once; only its SHA-256 is stored", async () => {
    const created = await h.call("POST", "/orgs/keys/keys", KEY);
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^armk_test_[A-Za-z0-9_-]{43}$/);
    expect(created.body.last_four).toBe(created.body.secret.slice(-4));
    const [row] = await h.database.db.select().from(apiKeys).where(eq(apiKeys.id, created.body.id));
    expect(row?.keyHash).toBe(hashKey(created.body.secret));
    expect(JSON.stringify(row)).not.toContain(created.body.secret);
    const expires = new Date(created.body.expires_at).getTime() - Date.now();
    expect(Math.round(expires / 86_400_000)).toBe(90);

    const revoked = await h.call("POST", `/keys/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect(revoked.body.secret).toBeUndefined();
    expect(JSON.stringify(revoked.body)).not.toContain(created.body.secret);
    const audit = await h.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.subjectId, created.body.id));
    expect(audit.map((a) => a.action).sort()).toEqual(["api_key.created", "api_key.revoked"]);
  });

  test("scopes come from the spec's table only; lifetimes are 30/90/180/365", async () => {
    for (const bad of [
      { ...KEY, scopes: ["stories:write"] },
      { ...KEY, scopes: [] },
      { ...KEY, lifetime_days: 45 },
      { ...KEY, environment: "staging" },
    ]) {
      const response = await h.call("POST", "/orgs/keys/keys", bad);
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe("validation_failed");
      expect(response.body.error.fields.length).toBeGreaterThan(0);
    }
  });

  test("at most 20 live keys; revoking one frees a place", async () => {
    await h.call("POST", "/orgs", { slug: "many-keys", name: "Many" });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const created = await h.call("POST", "/orgs/many-keys/keys", KEY);
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const refused = await h.call("POST", "/orgs/many-keys/keys", KEY);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("limit_reached");
    expect(refused.body.error.message).toContain("20");
    await h.call("POST", `/keys/${ids[0]}/revoke`);
    expect((await h.call("POST", "/orgs/many-keys/keys", KEY)).status).toBe(201);
  });

  test("unknown organization or key: 404", async () => {
    expect((await h.call("POST", "/orgs/nobody/keys", KEY)).status).toBe(404);
    expect((await h.call("POST", `/keys/${crypto.randomUUID()}/revoke`)).status).toBe(404);
  });
});

describe("webhook endpoints", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness();
    await h.call("POST", "/orgs", { slug: "hooks", name: "Hooks" });
  });
  afterAll(() => h.close());

  const create = (url: string, slug = "hooks") =>
    h.call("POST", `/orgs/${slug}/webhook_endpoints`, { url, events: ["story.published"] });

  for (const [url, reason] of [
    ["http://hooks.example.com/in", "https_required"],
    ["https://203.0.113.7/in", "ip_address_not_allowed"],
    ["https://[2001:db8::1]/in", "ip_address_not_allowed"],
    ["https://localhost/in", "private_host"],
    ["https://printer.local/in", "private_host"],
    ["https://api.internal/in", "private_host"],
    ["https://hooks.example.com:8443/in", "port_not_allowed"],
    ["https://user:pw@hooks.example.com/in", "credentials_in_url"],
    ["https://intranet/in", "invalid_host"],
    ["not a url", "invalid_url"],
    ["http://127.0.0.1:8080/in", "https_required"],
  ] as const) {
    test(`refuses ${url} (${reason})`, async () => {
      const response = await create(url);
      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe("validation_failed");
      expect(response.body.error.fields).toEqual([
        expect.objectContaining({ field: "url", reason }),
      ]);
    });
  }

  test("the secret is whsec_ + 32 bytes, shown once, sealed at rest", async () => {
    const created = await create("https://hooks.example.com/in");
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(created.body.secret_hint).toBe(secret.slice(-4));
    const [row] = await h.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.body.id));
    expect(row?.secretCiphertext).not.toContain(secret.slice(6));
    expect(open(row!.secretCiphertext, SECRETS_KEY)).toBe(secret);
    for (const action of ["disable", "enable", "test"]) {
      const response = await h.call("POST", `/webhook_endpoints/${created.body.id}/${action}`);
      expect(response.status).toBe(200);
      expect(JSON.stringify(response.body)).not.toContain(secret.slice(6));
      expect(response.body.secret).toBeUndefined();
    }
  });

  test("disable and enable set status and reason", async () => {
    const created = await create("https://toggle.example.com/in");
    const disabled = await h.call("POST", `/webhook_endpoints/${created.body.id}/disable`);
    expect(disabled.body).toMatchObject({ status: "disabled", disabled_reason: "by_client" });
    const enabled = await h.call("POST", `/webhook_endpoints/${created.body.id}/enable`);
    expect(enabled.body).toMatchObject({ status: "enabled", disabled_reason: null });
  });

  test("at most 10 endpoints per organization", async () => {
    await h.call("POST", "/orgs", { slug: "ten", name: "Ten" });
    for (let i = 0; i < 10; i++) {
      expect((await create(`https://h${i}.example.com/in`, "ten")).status).toBe(201);
    }
    const refused = await create("https://h10.example.com/in", "ten");
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("limit_reached");
  });

  test("unknown event types are refused", async () => {
    const response = await h.call("POST", "/orgs/hooks/webhook_endpoints", {
      url: "https://hooks.example.com/in",
      events: ["story.deleted"],
    });
    expect(response.status).toBe(422);
  });
});

describe("insecure targets switch", () => {
  test("allows http://127.0.0.1:<port> only when switched on", async () => {
    const h = await workspaceHarness({ allowInsecureTargets: true });
    await h.call("POST", "/orgs", { slug: "local", name: "Local" });
    const local = await h.call("POST", "/orgs/local/webhook_endpoints", {
      url: "http://127.0.0.1:8080/in",
      events: ["story.published"],
    });
    expect(local.status).toBe(201);
    const other = await h.call("POST", "/orgs/local/webhook_endpoints", {
      url: "http://10.0.0.1:8080/in",
      events: ["story.published"],
    });
    expect(other.status).toBe(422);
    await h.close();
  });
});
