import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { endpointsHarness, type Harness } from "./support/endpoints.ts";

describe("webhook endpoints refused", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await endpointsHarness();
    await h.call("POST", "/orgs", { slug: "hooks", name: "Hooks" });
  });
  afterAll(() => h.close());

  const create = (url: string, slug = "hooks") =>
    h.call("POST", `/orgs/${slug}/webhook_endpoints`, { url, events: ["story.published"] });

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
