import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cliAgainst } from "../../services/workspace/test/support/cli.ts";
import { endpointsHarness, type Harness } from "./support/endpoints.ts";

/** `npm run admin -- endpoint-rotate-secret <id>` prints the endpoint with its new secret. */
let h: Harness;
let cli: ReturnType<typeof cliAgainst>;

beforeAll(async () => {
  h = await endpointsHarness({ allowInsecureTargets: true });
  cli = cliAgainst(h);
  await h.call("POST", "/orgs", { slug: "rotated", name: "Rotated" });
});
afterAll(async () => {
  cli.stop();
  await h.close();
});

describe("npm run admin -- endpoint-rotate-secret", () => {
  test("prints the new secret once; the endpoint's hint follows it", async () => {
    const created = await cli.admin(
      "endpoint-create",
      "rotated",
      "http://127.0.0.1:9/hook",
      "--events",
      "story.published",
    );
    expect(created.code).toBe(0);
    const { id, secret } = created.json();
    const run = await cli.admin("endpoint-rotate-secret", id);
    expect(run.code).toBe(0);
    const rotated = run.json();
    expect(rotated.id).toBe(id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    const listed = (await cli.admin("endpoint-list", "rotated")).json();
    expect(listed.data[0].secret_hint).toBe(rotated.secret.slice(-4));
    expect(listed.data[0]).not.toHaveProperty("secret");
  });
});
