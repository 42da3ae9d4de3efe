import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  StatusIncidentUpdatedEventOut,
  WebhookDeliveryExhaustedEventOut,
  WebhookEndpointDisabledEventOut,
  WebhookEndpointFailingEventOut,
  WebhookEventOut,
  WebhookTestEventOut,
} from "@newsroom/shared/records";
import { newWebhookSecret } from "@newsroom/shared/secret-box";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Webhook } from "standardwebhooks";
import { webhookCatalog } from "../../services/workspace/src/webhook-catalog/catalog.ts";
import {
  orgWithMembers,
  type WebClient,
  type WebHarness,
  webHarness,
} from "../support/workspace-web-embedded.ts";

/**
 * The payload catalog: every event type with its schema and a sample, for who may see the
 * endpoints; and its signature check, one test per verdict, with requests signed by the
 * standardwebhooks package (not our signer).
 */
const MINUTE = 60_000;

describe("the webhook payload catalog", () => {
  let h: WebHarness;
  let owner: WebClient;
  let endpoint: { id: string; secret: string };
  let otherEndpointId = "";
  const path = "/app/orgs/catalog-org/webhook-catalog";

  beforeAll(async () => {
    h = await webHarness({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
    const org = await orgWithMembers(h, "catalog-org", 0);
    await orgWithMembers(h, "other-catalog-org", 0);
    const made = await h.admin("POST", "/orgs/catalog-org/webhook_endpoints", {
      url: "http://127.0.0.1:9/catalog",
      events: ["story.published"],
    });
    endpoint = { id: made.body.id, secret: made.body.secret };
    const other = await h.admin("POST", "/orgs/other-catalog-org/webhook_endpoints", {
      url: "http://127.0.0.1:9/other",
      events: ["story.published"],
    });
    otherEndpointId = other.body.id;
    owner = await h.signedIn(org.members.owner);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const body = JSON.stringify({
    id: "6c1f0a9e-2b7d-4e3a-8f5c-1d9e8b7a6c54",
    object: "event",
    type: "story.published",
    created_at: "2026-03-02T09:30:00.000Z",
    data: { story_id: "0f8b6d3e-5a4c-4b1e-9d2f-7c6a5b4e3d21", story: null, sequence: 3 },
  });
  /** Headers as pasted: "name: value" lines, signed by the standardwebhooks package. */
  const signed = (secret: string, payload: string, at: Date) => {
    const id = "6c1f0a9e-2b7d-4e3a-8f5c-1d9e8b7a6c54";
    const signature = new Webhook(secret).sign(id, at, payload);
    return `webhook-id: ${id}\nwebhook-timestamp: ${Math.floor(at.getTime() / 1000)}\nwebhook-signature: ${signature}`;
  };
  const check = async (headers: string, pasted: string, endpointId = endpoint.id) => {
    await owner.get(path);
    return owner.post(path, { endpoint: endpointId, headers, body: pasted });
  };
  const verdictOf = (text: string) => /data-verdict="([a-z_]+)"/.exec(text)?.[1];

  test("each event type with its schema from the OpenAPI document and a sample", async () => {
    const page = await owner.get(path);
    expect(page.status).toBe(200);
    for (const type of [
      "story.submitted",
      "story.approved",
      "story.rejected",
      "story.published",
      "story.unpublished",
      "webhook.test",
      "webhook_endpoint.failing",
      "webhook_endpoint.disabled",
      "webhook_delivery.exhausted",
    ]) {
      expect(page.text).toContain(`id="event-${type}"`);
    }
    // The schema is inlined (no $ref) and carries the ordering fields; the sample too.
    expect(page.text).not.toContain("$ref");
    expect(page.text).toContain("&quot;sequence&quot;");
    expect(page.text).toContain("&quot;previous_status&quot;: &quot;approved&quot;");
  });

  test("every sample is a valid body of its type", () => {
    const entries = webhookCatalog();
    expect(entries).toHaveLength(10);
    const operational: Record<string, TSchema> = {
      "webhook.test": WebhookTestEventOut,
      "webhook_endpoint.failing": WebhookEndpointFailingEventOut,
      "webhook_endpoint.disabled": WebhookEndpointDisabledEventOut,
      "webhook_delivery.exhausted": WebhookDeliveryExhaustedEventOut,
      "status.incident_updated": StatusIncidentUpdatedEventOut,
    };
    for (const entry of entries) {
      const schema = operational[entry.type] ?? WebhookEventOut;
      expect(Value.Check(schema, entry.sample)).toBe(true);
      expect(entry.sample.type).toBe(entry.type as typeof entry.sample.type);
    }
  });

  test("a viewer may not open it", async () => {
    const org = await orgWithMembers(h, "viewer-catalog-org", 0);
    const viewer = await h.signedIn(org.members.viewer);
    expect((await viewer.get("/app/orgs/viewer-catalog-org/webhook-catalog")).status).toBe(403);
  });

  test("valid: signed with the endpoint's secret, now", async () => {
    const answer = await check(signed(endpoint.secret, body, h.clock.now()), body);
    expect(answer.status).toBe(200);
    expect(verdictOf(answer.text)).toBe("valid");
  });

  test("timestamp too old: signed ten minutes ago", async () => {
    const at = new Date(h.clock.now().getTime() - 10 * MINUTE);
    const answer = await check(signed(endpoint.secret, body, at), body);
    expect(verdictOf(answer.text)).toBe("timestamp_outside");
    expect(answer.text).toContain("Timestamp too old");
  });

  test("body re-encoded: the receiver pretty-printed the JSON before checking", async () => {
    const reEncoded = JSON.stringify(JSON.parse(body), null, 2);
    const answer = await check(signed(endpoint.secret, body, h.clock.now()), reEncoded);
    expect(verdictOf(answer.text)).toBe("body_re_encoded");
    expect(answer.text).toContain("Body re-encoded");
  });

  test("wrong secret: signed with another secret", async () => {
    const answer = await check(signed(newWebhookSecret(), body, h.clock.now()), body);
    expect(verdictOf(answer.text)).toBe("wrong_secret");
    expect(answer.text).toContain("Wrong secret");
    expect(answer.text).not.toContain(endpoint.secret);
  });

  test("headers missing: said which", async () => {
    const answer = await check("webhook-id: evt", body);
    expect(verdictOf(answer.text)).toBe("missing_headers");
    expect(answer.text).toContain("webhook-timestamp, webhook-signature");
  });

  test("another organization's endpoint is refused; a post without the CSRF field is 403", async () => {
    const foreign = await check(
      signed(endpoint.secret, body, h.clock.now()),
      body,
      otherEndpointId,
    );
    expect(foreign.status).toBe(422);
    expect(verdictOf(foreign.text)).toBeUndefined();
    await owner.get(path);
    const noToken = await owner.post(path, {
      _csrf: null,
      endpoint: endpoint.id,
      headers: signed(endpoint.secret, body, h.clock.now()),
      body,
    });
    expect(noToken.status).toBe(403);
  });

  test("during a rotation the previous secret still verifies", async () => {
    const rotated = await h.admin("POST", `/webhook_endpoints/${endpoint.id}/rotate-secret`);
    const before = await check(signed(endpoint.secret, body, h.clock.now()), body);
    expect(verdictOf(before.text)).toBe("valid");
    const after = await check(signed(rotated.body.secret, body, h.clock.now()), body);
    expect(verdictOf(after.text)).toBe("valid");
  });
});
