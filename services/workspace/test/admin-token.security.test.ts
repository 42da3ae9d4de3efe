import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, workspaceHarness } from "./support/harness.ts";

describe("the internal API's admin token", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness();
  });
  afterAll(() => h.close());

  test("the admin token is required and compared exactly", async () => {
    expect((await h.call("POST", "/orgs", { slug: "x", name: "X" }, null)).status).toBe(401);
    const wrong = await h.call(
      "POST",
      "/orgs",
      { slug: "x", name: "X" },
      "workspace-test-admin-tokem",
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.type).toBe("authentication_error");
  });
});
