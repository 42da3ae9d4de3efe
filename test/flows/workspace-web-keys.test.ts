import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  orgWithMembers,
  type WebClient,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * A flow across services: a key created in the workspace web app reads the client API at once,
 * and stops the moment it is revoked there.
 */
describe("an API key made in the workspace web app, on the client API", () => {
  let h: WebHarness;
  let owner: WebClient;

  beforeAll(async () => {
    h = await webHarness();
    const org = await orgWithMembers(h, "keys-org", 0);
    owner = await h.signedIn(org.members.owner);
  }, 120_000);
  afterAll(() => h?.close());

  test("the key shown once works on the client API at once, and stops at its revocation", async () => {
    await owner.get("/app/orgs/keys-org/keys");
    const created = await owner.post("/app/orgs/keys-org/keys", {
      environment: "test",
      scopes: "stories:read",
      lifetime_days: "90",
      name: "Reader & co",
    });
    expect(created.status).toBe(303);
    const shown = await owner.get(created.headers.get("location")!);
    const secret = /value="(armk_test_[A-Za-z0-9_-]{43})"/.exec(shown.text)![1]!;
    const read = () =>
      fetch(`${h.url}/v1/stories`, { headers: { authorization: `Bearer ${secret}` } });
    expect((await read()).status).toBe(200);

    const list = await owner.get("/app/orgs/keys-org/keys");
    expect(list.text).toContain("Reader &amp; co");
    const id = /href="\/app\/keys\/([^/"]+)\/revoke"/.exec(list.text)![1]!;
    await owner.get(`/app/keys/${id}/revoke`);
    expect((await owner.post(`/app/keys/${id}/revoke`)).status).toBe(303);
    expect((await read()).status).toBe(401);
  });

  test("a name over 100 characters is refused beside its field, and no key is made", async () => {
    await owner.get("/app/orgs/keys-org/keys");
    const before = (await owner.get("/app/orgs/keys-org/keys")).text.match(/\/revoke"/g)?.length;
    const refused = await owner.post("/app/orgs/keys-org/keys", {
      environment: "test",
      scopes: "stories:read",
      lifetime_days: "90",
      name: "n".repeat(101),
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(/id="field-name-error"[^>]*>Keep the name to 100 characters\./);
    const after = (await owner.get("/app/orgs/keys-org/keys")).text.match(/\/revoke"/g)?.length;
    expect(after).toBe(before);
  });
});
