import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashKey } from "@newsroom/shared/api-keys";
import { apiKeys, auditEvents } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import { type Harness, workspaceHarness } from "./support/harness.ts";

const KEY = { environment: "test", scopes: ["stories:read", "feed:read"], lifetime_days: 90 };

describe("API key secrets", () => {
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
});
