import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { endpointsHarness, type Harness } from "./support/endpoints.ts";

describe("webhook endpoints", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await endpointsHarness();
    await h.call("POST", "/orgs", { slug: "hooks", name: "Hooks" });
  });
  afterAll(() => h.close());

  const create = (url: string) =>
    h.call("POST", "/orgs/hooks/webhook_endpoints", { url, events: ["story.published"] });

  test("disable and enable set status and reason", async () => {
    const created = await create("https://toggle.example.com/in");
    const disabled = await h.call("POST", `/webhook_endpoints/${created.body.id}/disable`);
    expect(disabled.body).toMatchObject({ status: "disabled", disabled_reason: "by_client" });
    const enabled = await h.call("POST", `/webhook_endpoints/${created.body.id}/enable`);
    expect(enabled.body).toMatchObject({ status: "enabled", disabled_reason: null });
  });
});
