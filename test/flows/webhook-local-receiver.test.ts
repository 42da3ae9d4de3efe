import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type WebHarness, webHarness } from "../support/workspace-web-embedded.ts";

/**
 * A flow across the workspace and the webhooks service in development with no switch written: an
 * endpoint on a receiver on this machine is accepted and its test event delivered, without a
 * restart with WEBHOOK_ALLOW_INSECURE_TARGETS.
 */
describe("a local webhook receiver in development, by default", () => {
  let h: WebHarness;
  let receiver: ReturnType<typeof Bun.serve>;
  const received: string[] = [];

  beforeAll(async () => {
    h = await webHarness();
    receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        received.push((await request.json()).type);
        return new Response(null, { status: 204 });
      },
    });
    await h.admin("POST", "/orgs", { slug: "local-hooks", name: "Local hooks" });
  }, 120_000);
  afterAll(async () => {
    receiver?.stop(true);
    await h?.close();
  });

  for (const host of ["127.0.0.1", "localhost"]) {
    test(`http://${host}:<port> is accepted and its test event delivered`, async () => {
      const made = await h.admin("POST", "/orgs/local-hooks/webhook_endpoints", {
        url: `http://${host}:${receiver.port}/hooks`,
        events: ["story.published"],
      });
      expect(made.status).toBe(201);
      const before = received.length;
      const sent = await h.admin("POST", `/webhook_endpoints/${made.body.id}/test`);
      expect(sent.status).toBe(200);
      expect(sent.body.test).toMatchObject({ status: "accepted", status_code: 204 });
      expect(received.slice(before)).toEqual(["webhook.test"]);
    });
  }

  test("a private address stays refused", async () => {
    for (const url of ["http://10.0.0.7:8080/hooks", "http://192.168.1.2/hooks"]) {
      const refused = await h.admin("POST", "/orgs/local-hooks/webhook_endpoints", {
        url,
        events: ["story.published"],
      });
      expect(refused.status).toBe(422);
    }
  });
});
