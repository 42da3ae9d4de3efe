import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiKeys, apiKeyUsage } from "@newsroom/shared/db/schema";
import { eq } from "drizzle-orm";
import {
  type Embedded,
  embedded,
  newKey,
  organizationWithStories,
} from "../support/client-api-embedded.ts";

/**
 * A flow across two services: a key's last use is written by the client API alone
 * (`api_key_usage`) and shown by the workspace: its internal API (and so the CLI) and its keys
 * page read what the client API wrote.
 */
let e: Embedded;
let org: Awaited<ReturnType<typeof organizationWithStories>>;

beforeAll(async () => {
  e = await embedded();
  org = await organizationWithStories(e);
});
afterAll(async () => {
  await e.close();
});

async function workspaceKey(keyId: string) {
  const list = await e.workspace("GET", `/orgs/${org.slug}/keys`);
  expect(list.status).toBe(200);
  return list.body.data.find((key: { id: string }) => key.id === keyId);
}

describe("a key's last use", () => {
  test("the workspace shows the use this service recorded, in its list and a revocation", async () => {
    const key = await newKey(e, org.slug, ["stories:read"]);
    const unused = await newKey(e, org.slug, ["stories:read"]);
    expect((await workspaceKey(key.id)).last_used_at).toBeNull();

    expect((await e.get("/v1/stories", key.secret)).status).toBe(200);
    // A replica writes what it holds when it stops, as on shutdown.
    await e.service.stop();

    const [usage] = await e.database.db
      .select()
      .from(apiKeyUsage)
      .where(eq(apiKeyUsage.keyId, key.id));
    expect(usage?.organizationId).toBe(org.id);
    const recorded = usage!.lastUsedAt.toISOString();
    expect((await workspaceKey(key.id)).last_used_at).toBe(recorded);
    expect((await workspaceKey(unused.id)).last_used_at).toBeNull();

    const revoked = await e.workspace("POST", `/keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect(revoked.body.last_used_at).toBe(recorded);
    // Revoking again answers the same record.
    expect((await e.workspace("POST", `/keys/${key.id}/revoke`)).body).toEqual(revoked.body);

    // The key's own row no longer carries the use.
    const [row] = await e.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row?.retiredLastUsedAt).toBeNull();
  });
});
