import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Harness, workspaceHarness } from "./support/harness.ts";

/** The internal members routes refuse what would leave an organization without an owner. */
let h: Harness;
beforeAll(async () => {
  h = await workspaceHarness();
  await h.call("POST", "/orgs", { slug: "owned", name: "Owned" });
  await h.call("POST", "/orgs/owned/members", { email: "only-owner@example.com", role: "owner" });
});
afterAll(() => h.close());

test("the last owner cannot be removed: 409, and stays an owner", async () => {
  const removed = await h.call("DELETE", "/orgs/owned/members/only-owner@example.com");
  expect(removed.status).toBe(409);
  expect(removed.body.error.fields).toEqual([{ field: "role", reason: "last_owner" }]);
  const again = await h.call("POST", "/orgs/owned/members", {
    email: "only-owner@example.com",
    role: "owner",
  });
  expect(again.body.role).toBe("owner");
});

test("the last owner cannot be made something else: 409", async () => {
  const demoted = await h.call("POST", "/orgs/owned/members", {
    email: "only-owner@example.com",
    role: "admin",
  });
  expect(demoted.status).toBe(409);
});

test("with a second owner, the first can go", async () => {
  await h.call("POST", "/orgs/owned/members", { email: "second@example.com", role: "owner" });
  const removed = await h.call("DELETE", "/orgs/owned/members/only-owner@example.com");
  expect(removed.status).toBe(204);
  const last = await h.call("DELETE", "/orgs/owned/members/second@example.com");
  expect(last.status).toBe(409);
});

test("unknown member, unknown organization, bad role, bad address, no token", async () => {
  expect((await h.call("DELETE", "/orgs/owned/members/nobody@example.com")).status).toBe(404);
  const noOrg = await h.call("POST", "/orgs/nope/members", {
    email: "a@example.com",
    role: "viewer",
  });
  expect(noOrg.status).toBe(404);
  const badRole = await h.call("POST", "/orgs/owned/members", {
    email: "a@example.com",
    role: "superuser",
  });
  expect(badRole.status).toBe(422);
  const badEmail = await h.call("POST", "/orgs/owned/members", { email: "nope", role: "viewer" });
  expect(badEmail.status).toBe(422);
  const anonymous = await h.call(
    "POST",
    "/orgs/owned/members",
    { email: "a@example.com", role: "viewer" },
    null,
  );
  expect(anonymous.status).toBe(401);
});
