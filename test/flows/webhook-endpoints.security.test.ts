import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { webhookEndpoints } from "@newsroom/shared/db/schema";
import { open } from "@newsroom/shared/secret-box";
import { eq } from "drizzle-orm";
import { endpointsHarness, type Harness, SECRETS_KEY } from "./support/endpoints.ts";

describe("webhook endpoint secrets", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await endpointsHarness();
    await h.call("POST", "/orgs", { slug: "hooks", name: "Hooks" });
  });
  afterAll(() => h.close());

  test("the secret is whsec_ + 32 bytes, shown once, sealed at rest", async () => {
    const created = await h.call("POST", "/orgs/hooks/webhook_endpoints", {
      url: "https://hooks.example.com/in",
      events: ["story.published"],
    });
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
});
