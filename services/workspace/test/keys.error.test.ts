import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, workspaceHarness } from "./support/harness.ts";

const KEY = { environment: "test", scopes: ["stories:read", "feed:read"], lifetime_days: 90 };

describe("API keys", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness();
    await h.call("POST", "/orgs", { slug: "keys", name: "Keys" });
  });
  afterAll(() => h.close());

  test("scopes come from the spec's table only; lifetimes are 30/90/180/365", async () => {
    for (const bad of [
      { ...KEY, scopes: ["stories:write"] },
      { ...KEY, scopes: [] },
      { ...KEY, lifetime_days: 45 },
      { ...KEY, environment: "staging" },
      { ...KEY, name: "n".repeat(101) },
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
    // The keys here are test keys: the message says what counts, not "live keys".
    expect(refused.body.error.message).toContain("20 keys in use, test and live keys alike");
    expect(refused.body.error.message).not.toContain("20 live keys");
    await h.call("POST", `/keys/${ids[0]}/revoke`);
    expect((await h.call("POST", "/orgs/many-keys/keys", KEY)).status).toBe(201);
  });

  test("a key's optional name is in its record and in the list; without one it is null", async () => {
    const named = await h.call("POST", "/orgs/keys/keys", { ...KEY, name: "Search index" });
    expect(named.status).toBe(201);
    expect(named.body.name).toBe("Search index");
    const unnamed = await h.call("POST", "/orgs/keys/keys", KEY);
    expect(unnamed.body.name).toBeNull();
    const list = await h.call("GET", "/orgs/keys/keys");
    const names = Object.fromEntries(
      list.body.data.map((key: { id: string; name: string | null }) => [key.id, key.name]),
    );
    expect(names[named.body.id]).toBe("Search index");
    expect(names[unnamed.body.id]).toBeNull();
  });

  test("unknown organization or key: 404", async () => {
    expect((await h.call("POST", "/orgs/nobody/keys", KEY)).status).toBe(404);
    expect((await h.call("POST", `/keys/${crypto.randomUUID()}/revoke`)).status).toBe(404);
  });
});
