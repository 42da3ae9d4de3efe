import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { KEY_SCOPES } from "@newsroom/shared/api-keys";
import { loadConfig } from "@newsroom/shared/config";
import { apiKeys, apiKeyUsage } from "@newsroom/shared/db/schema";
import { edge } from "@newsroom/shared/http/edge";
import { updateOrganizationRow } from "@newsroom/shared/testing/builders";
import { eq } from "drizzle-orm";
import { createClientApiApp } from "../src/app.ts";
import { clientApiFixture, type Fixture, makeKey } from "./support/fixture.ts";

let f: Fixture;
beforeAll(async () => {
  // No timer flush during the test: writes happen only when the test asks.
  f = await clientApiFixture({ keyUsage: { flushEveryMs: 3_600_000, resolutionMs: 60_000 } });
});
afterAll(async () => {
  await f.close();
});

/** Revokes a key as the workspace does: the row stays, marked revoked. */
async function revoke(keyId: string): Promise<void> {
  await f.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, keyId));
}

/** Another replica: its own app and key-usage batch over the same database. */
function replica(serviceEnv: "production" | "sandbox" | "development" = "development") {
  const api = createClientApiApp({
    db: f.db,
    config: loadConfig({
      SERVICE_ENV: serviceEnv,
      SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
      ADMIN_TOKEN: "x".repeat(20),
      HUMAN_CHECK_MODE: "turnstile",
    }),
    keyUsage: { flushEveryMs: 3_600_000 },
  });
  const handle = edge((request) => api.app.handle(request), { trustedProxies: "" });
  return {
    api,
    get: (path: string, key: string) =>
      handle(
        new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${key}` } }),
      ),
  };
}

async function lastUsedAt(keyId: string): Promise<Date | null> {
  const [row] = await f.db
    .select({ at: apiKeyUsage.lastUsedAt })
    .from(apiKeyUsage)
    .where(eq(apiKeyUsage.keyId, keyId));
  return row?.at ?? null;
}

describe("last_used_at", () => {
  test("is kept in memory per request and written in one batch", async () => {
    const key = await makeKey(f.db, f.a.id, ["stories:read"]);
    const other = await makeKey(f.db, f.a.id, ["feed:read"]);
    const before = Date.now();
    for (let i = 0; i < 20; i++) {
      expect((await f.get("/v1/stories?limit=1", { key: key.secret })).status).toBe(200);
      expect((await f.get("/v1/feed.json", { key: other.secret })).status).toBe(200);
    }
    expect(await lastUsedAt(key.id)).toBeNull();
    expect(f.api.keyUsage.pendingCount).toBeGreaterThanOrEqual(2);
    await f.api.keyUsage.flush();
    expect(f.api.keyUsage.pendingCount).toBe(0);
    for (const id of [key.id, other.id]) {
      const at = (await lastUsedAt(id))!.getTime();
      expect(at).toBeGreaterThanOrEqual(before - 5);
      expect(at).toBeLessThanOrEqual(Date.now());
    }
    // Fresh enough: further requests within the resolution record nothing.
    await f.get("/v1/stories?limit=1", { key: key.secret });
    expect(f.api.keyUsage.pendingCount).toBe(0);
  });

  test("a refused key (403 for scope) still counts as used; a revoked one does not", async () => {
    const key = await makeKey(f.db, f.a.id, ["feed:read"]);
    expect((await f.get("/v1/stories", { key: key.secret })).status).toBe(403);
    const gone = await makeKey(f.db, f.a.id, ["stories:read"]);
    await revoke(gone.id);
    expect((await f.get("/v1/stories", { key: gone.secret })).status).toBe(401);
    await f.api.keyUsage.flush();
    expect(await lastUsedAt(key.id)).not.toBeNull();
    expect(await lastUsedAt(gone.id)).toBeNull();
  });

  test("never moves back when replicas flush out of order, and stop() writes what is pending", async () => {
    const key = await makeKey(f.db, f.a.id, ["stories:read"]);
    const late = replica();
    const early = replica();
    late.api.keyUsage.record(key.id, null, new Date(Date.now() + 1_000));
    early.api.keyUsage.record(key.id, null, new Date(Date.now() - 10_000));
    await late.api.keyUsage.stop();
    const written = await lastUsedAt(key.id);
    await early.api.keyUsage.stop();
    expect(await lastUsedAt(key.id)).toEqual(written);
  });
});

describe("revocation and expiry", () => {
  test("a revoked key fails on the very next request on every replica", async () => {
    const key = await makeKey(f.db, f.a.id, KEY_SCOPES);
    const one = replica();
    const two = replica();
    expect((await one.get("/v1/stories", key.secret)).status).toBe(200);
    expect((await two.get("/v1/feed.xml", key.secret)).status).toBe(200);
    await revoke(key.id);
    for (const r of [one, two]) {
      const response = await r.get("/v1/stories", key.secret);
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe("invalid_api_key");
    }
    await Promise.all([one.api.keyUsage.stop(), two.api.keyUsage.stop()]);
  });

  test("a key stops working the moment it expires", async () => {
    const key = await makeKey(f.db, f.a.id, ["stories:read"]);
    expect((await f.get("/v1/stories", { key: key.secret })).status).toBe(200);
    await f.db.update(apiKeys).set({ expiresAt: new Date() }).where(eq(apiKeys.id, key.id));
    expect((await f.get("/v1/stories", { key: key.secret })).status).toBe(401);
  });

  test("starting the newsroom shows its stories on the next request", async () => {
    const empty = await (await f.get("/v1/stories", { key: f.idle.key })).json();
    expect(empty.data).toEqual([]);
    await updateOrganizationRow(f.db, f.idle.id, { newsroomRunning: true });
    const full = await (await f.get("/v1/stories", { key: f.idle.key })).json();
    expect(full.data).toHaveLength(f.idle.storyIds.length);
    await updateOrganizationRow(f.db, f.idle.id, { newsroomRunning: false });
  });
});

describe("environments", () => {
  test("production accepts live keys only; sandbox and development test keys only", async () => {
    const live = await makeKey(f.db, f.a.id, ["stories:read"], "live");
    const testKey = await makeKey(f.db, f.a.id, ["stories:read"], "test");
    const cases = [
      ["production", live.secret, 200],
      ["production", testKey.secret, 401],
      ["sandbox", testKey.secret, 200],
      ["sandbox", live.secret, 401],
      ["development", testKey.secret, 200],
      ["development", live.secret, 401],
    ] as const;
    for (const [env, secret, status] of cases) {
      const r = replica(env);
      const response = await r.get("/v1/stories", secret);
      expect(`${env} ${secret.slice(0, 10)} ${response.status}`).toBe(
        `${env} ${secret.slice(0, 10)} ${status}`,
      );
      if (status === 401) {
        expect((await response.json()).error.code).toBe("wrong_environment");
        expect(response.headers.get("www-authenticate")).toBe("Bearer");
      }
      await r.api.keyUsage.stop();
    }
  });

  test("the Bearer scheme is case-insensitive", async () => {
    const response = await f.get("/v1/stories", {
      headers: { authorization: `bearer ${f.a.key}` },
    });
    expect(response.status).toBe(200);
  });

  test("only spaces separate the scheme from the key: a tab is 401 invalid_api_key", async () => {
    for (const authorization of [`Bearer\t${f.a.key}`, `Bearer \t${f.a.key}`]) {
      const response = await f.get("/v1/stories", { headers: { authorization } });
      expect(response.status).toBe(401);
      expect((await response.json()).error.code).toBe("invalid_api_key");
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
    }
  });
});
