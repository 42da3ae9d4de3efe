import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig, secretsKey } from "@newsroom/shared/config";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { createWebhooksService } from "@newsroom/webhooks/app";
import { parseFeed } from "@rowanmanning/feed-parser";
import { Webhook } from "standardwebhooks";
import {
  address,
  type FormsHarness,
  formsHarness,
} from "../../services/forms/test/support/harness.ts";
import { emailsArrive, emailsTo, statusTokenIn } from "../../services/forms/test/support/status.ts";
import { createWebhookEndpoint } from "../../services/webhooks/src/endpoints/service.ts";
import {
  unique,
  type WebClient,
  type WebHarness,
  webHarness,
} from "../../services/workspace/test/support/web-app.ts";

/**
 * The status page's subscriptions across three services on one database and one bus: staff open
 * an incident and post an update in the workspace's web app; the workspace's outbox relay
 * publishes `status.incident_updated`; the forms service emails the confirmed subscriber (who
 * signed up with the status page's form), the Atom feed lists the update (read with the feed
 * parser), and the webhooks service delivers it signed to a receiver that verifies it with the
 * `standardwebhooks` package.
 */
describe("an incident's update reaches an email subscriber, the feed and a webhook receiver", () => {
  let h: WebHarness;
  let staff: WebClient;
  let forms: FormsHarness;
  let webhooks: ServiceHandle;
  let receiver: Receiver;

  beforeAll(async () => {
    h = await webHarness();
    await h.admin("POST", "/orgs", { slug: "armage", name: "House" });
    const email = unique("staff");
    await h.admin("POST", "/orgs/armage/members", { email, role: "admin" });
    staff = await h.signedIn(email);
    const { database, bus } = h.runtime;
    forms = await formsHarness(
      { SES_ENDPOINT: h.ses.url },
      { database, rateLimits: new MemoryRateLimitStore() },
      bus,
    );
    receiver = startReceiver();
    webhooks = await createWebhooksService(
      testRuntime({
        database,
        bus,
        config: loadConfig({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true", PGLITE_DIR: "memory" }),
      }),
      { pollIntervalMs: 20 },
    );
  });

  afterAll(async () => {
    await webhooks?.stop();
    receiver?.stop();
    await forms?.close();
    await h?.close();
  });

  test("staff post an update: one email, an Atom entry, one verified webhook", async () => {
    // A reader signs up with the status page's form, then confirms from the email.
    const reader = address("status-reader");
    const page = await (await fetch(`${h.url}/status`)).text();
    expect(page).toContain('action="/v1/public/status/subscribe"');
    const signUp = await forms.post(
      "/v1/public/status/subscribe",
      { email: reader },
      { as: "form" },
    );
    expect(signUp.status).toBe(303);
    const back = new URL(signUp.headers.get("location")!);
    expect(`${back.pathname}${back.search}`).toBe("/status?subscribed=1");
    const notice = await (await fetch(`${h.url}${back.pathname}${back.search}`)).text();
    expect(notice).toContain("Check your inbox");
    const [confirmation] = await emailsArrive(h.ses, reader, "Confirm your subscription to status");
    const confirmed = await forms.post(
      "/v1/public/status/confirm",
      { t: statusTokenIn(confirmation) },
      { as: "form" },
    );
    expect(confirmed.status).toBe(200);

    // An organization's endpoint subscribed to the status page's events.
    const slug = `hooks-${crypto.randomUUID().slice(0, 8)}`;
    const org = await h.admin("POST", "/orgs", { slug, name: "Hooks" });
    expect(org.status).toBe(201);
    const { row: endpoint, secret } = await createWebhookEndpoint(
      {
        db: h.runtime.database.db,
        secretsKey: secretsKey(forms.config),
        allowInsecureTargets: true,
      },
      org.body.id,
      { url: receiver.url("/status"), events: ["status.incident_updated"] },
    );
    expect(endpoint.events).toEqual(["status.incident_updated"]);

    // Staff open an incident in the workspace, then post an update.
    expect((await staff.get("/app/status/incidents/new")).status).toBe(200);
    const created = await staff.post("/app/status/incidents", {
      kind: "incident",
      name: "Delayed webhooks",
      impact: "minor",
      status: "investigating",
      body: "Deliveries are running late.",
      component_webhooks: "degraded_performance",
    });
    expect(created.status).toBe(303);
    const id = /\/app\/status\/incidents\/([0-9a-f-]{36})/.exec(
      created.headers.get("location")!,
    )![1]!;
    await staff.get(`/app/status/incidents/${id}`);
    const updated = await staff.post(`/app/status/incidents/${id}/updates`, {
      status: "identified",
      body: "A slow database query holds the queue; a fix is on its way.",
      component_webhooks: "degraded_performance",
    });
    expect(updated.status).toBe(303);

    // The subscriber: one email per update, the update's words, the incident's page, the way out.
    const [email] = await emailsArrive(h.ses, reader, "[Identified] Delayed webhooks");
    expect(email?.body.text).toContain("A slow database query holds the queue");
    expect(email?.body.text).toContain(`/status/incidents/${id}`);
    expect(email?.body.text).toContain("https://api.example.test/v1/public/status/unsubscribe?t=");
    await emailsArrive(h.ses, reader, "[Investigating] Delayed webhooks");

    // The feed.
    const atom = parseFeed(await (await fetch(`${h.url}/status/history.atom`)).text());
    expect(atom.items.map((item) => item.title)).toContain("Delayed webhooks: Identified");

    // The webhook receiver: both updates, each verified with the endpoint's secret.
    const hits = await eventually(
      () => receiver.at("/status"),
      (found) => found.length === 2,
      { message: "two status deliveries", timeoutMs: 30_000 },
    );
    const bodies = hits.map(
      (hit) =>
        new Webhook(secret).verify(hit.body, {
          "webhook-id": hit.headers.get("webhook-id")!,
          "webhook-timestamp": hit.headers.get("webhook-timestamp")!,
          "webhook-signature": hit.headers.get("webhook-signature")!,
        }) as {
          type: string;
          data: { incident: { id: string }; update: { status: string; body: string } };
        },
    );
    expect(bodies.every((body) => body.type === "status.incident_updated")).toBe(true);
    expect(bodies.every((body) => body.data.incident.id === id)).toBe(true);
    expect(bodies.map((body) => body.data.update.status).sort()).toEqual([
      "identified",
      "investigating",
    ]);

    // Exactly once each, whatever redeliveries happened meanwhile.
    await Bun.sleep(1_000);
    expect(await emailsTo(h.ses, reader, "[Identified]")).toHaveLength(1);
    expect(receiver.at("/status")).toHaveLength(2);
  });
});
