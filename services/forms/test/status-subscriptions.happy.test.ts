import { describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { JetStreamBus } from "@newsroom/shared/bus/jetstream";
import { requireService } from "@newsroom/shared/testing/database";
import { statusIncidentEvent } from "@newsroom/shared/testing/status-events";
import { address, headerOf, unsubscribeLinkIn } from "./support/harness.ts";
import {
  emailsArrive,
  emailsTo,
  STATUS_SUBSCRIBE,
  statusRow,
  statusSubscriber,
  statusTokenIn,
  subscribeToStatus,
} from "./support/status.ts";
import { type FormsWorld, formsWorld } from "./support/world.ts";

const SUBJECT = "[Investigating] Delayed webhooks";

const world = formsWorld();
const { ses, forms } = world;

describe("status page subscriptions", () => {
  test("subscribe, open the link, confirm, get an update, unsubscribe in one click", async () => {
    const email = address("status");
    const response = await subscribeToStatus(forms, email, {
      headers: { accept: "application/json" },
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ status: "accepted" });
    expect(response.headers.get("cache-control")).toBe("no-store");

    const [confirmation] = await emailsTo(ses, email, "Confirm your subscription to status");
    expect(confirmation?.body.text).toContain(
      "https://api.example.test/v1/public/status/confirm?t=",
    );
    const token = statusTokenIn(confirmation);

    // Opening the link (a mail scanner does) subscribes nobody.
    const page = await forms.handle(
      new Request(`http://localhost/v1/public/status/confirm?t=${token}`),
    );
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('action="/v1/public/status/confirm"');
    expect(html.match(/<button/g)).toHaveLength(1);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await statusRow(forms, email)).toBeUndefined();

    const confirmed = await forms.post("/v1/public/status/confirm", { t: token }, { as: "form" });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain("You are subscribed");
    expect((await statusRow(forms, email))?.confirmedAt).toBeInstanceOf(Date);
    const [welcome] = await emailsTo(ses, email, "You are subscribed to status updates");
    expect(unsubscribeLinkIn(welcome)).toStartWith("/v1/public/status/unsubscribe?t=");

    // A used link confirms again and sends nothing more.
    const again = await forms.post("/v1/public/status/confirm", { t: token }, { as: "form" });
    expect(again.status).toBe(200);
    expect(await emailsTo(ses, email, "You are subscribed")).toHaveLength(1);

    const event = statusIncidentEvent();
    await forms.bus.publish(event);
    const [update] = await emailsArrive(ses, email, SUBJECT);
    expect(update?.from).toBe('"Status updates" <forms@example.com>');
    expect(update?.body.text).toContain("Incident: Delayed webhooks");
    expect(update?.body.text).toContain("Status: Investigating");
    expect(update?.body.text).toContain(event.data.update.body);
    expect(update?.body.text).toContain("Affected: Webhooks (Degraded performance)");
    expect(update?.body.text).toContain(event.data.incident.shortlink);
    expect(update?.body.html).toContain(`href="${event.data.incident.shortlink}"`);
    expect(headerOf(update, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    const link = unsubscribeLinkIn(update);
    expect(link).toBe(unsubscribeLinkIn(welcome));

    // The same event again, on another replica (its own bus): no second email.
    const replica = await forms.sibling({}, { sameClock: true });
    try {
      await replica.bus.publish(event);
      await Bun.sleep(1_000);
      expect(await emailsTo(ses, email, SUBJECT)).toHaveLength(1);
    } finally {
      await replica.close();
    }

    const gone = await forms.post(link, "List-Unsubscribe=One-Click", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(gone.status).toBe(200);
    expect(await gone.text()).toContain("You are unsubscribed");
    expect(await statusRow(forms, email)).toBeUndefined();
    const twice = await forms.post(link, "List-Unsubscribe=One-Click", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(twice.status).toBe(200);

    // The next update reaches a subscriber still on the list, not the one who left.
    const stayer = address("stayer");
    await statusSubscriber(forms, ses, stayer);
    const next = statusIncidentEvent({ update: { status: "identified", body: "Found it." } });
    await forms.bus.publish(next);
    await emailsArrive(ses, stayer, "[Identified] Delayed webhooks");
    expect(await emailsTo(ses, email, "[Identified]")).toHaveLength(0);
    expect(await emailsTo(ses, email, "[")).toHaveLength(1);
  });

  test("the status page's form post goes back to /status, its button page unsubscribes", async () => {
    const email = address("form");
    const response = await subscribeToStatus(forms, email, { as: "form" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(
      "https://api.example.test/status?subscribed=1#subscribe",
    );
    const invalid = await forms.post(
      STATUS_SUBSCRIBE,
      {
        email: "not an address",
        submission_id: crypto.randomUUID(),
        started_at: Date.now() - 9000,
      },
      { as: "form" },
    );
    expect(invalid.status).toBe(303);
    expect(invalid.headers.get("location")).toBe(
      "https://api.example.test/status?subscribed=invalid#subscribe",
    );

    const [confirmation] = await emailsTo(ses, email, "Confirm your subscription to status");
    const confirmed = await forms.post(
      "/v1/public/status/confirm",
      { t: statusTokenIn(confirmation) },
      { headers: { accept: "application/json" } },
    );
    expect(await confirmed.json()).toEqual({ status: "confirmed" });
    const [welcome] = await emailsTo(ses, email, "You are subscribed to status updates");
    const link = unsubscribeLinkIn(welcome);

    const page = await forms.handle(new Request(`http://localhost${link}`));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Unsubscribe from status updates");
    expect(html).toContain('action="/v1/public/status/unsubscribe"');
    expect(await statusRow(forms, email)).toBeDefined();

    const token = new URL(`http://localhost${link}`).searchParams.get("t")!;
    const button = await forms.post("/v1/public/status/unsubscribe", { t: token }, { as: "form" });
    expect(button.status).toBe(200);
    expect(await button.text()).toContain('href="https://api.example.test/status"');
    expect(await statusRow(forms, email)).toBeUndefined();
  });

  test("the status page's cached form posts the address alone; a filled honeypot is dropped", async () => {
    const email = address("cached");
    const response = await forms.post(STATUS_SUBSCRIBE, { email }, { as: "form" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(
      "https://api.example.test/status?subscribed=1#subscribe",
    );
    expect(await emailsTo(ses, email, "Confirm your subscription to status")).toHaveLength(1);

    const bot = address("bot");
    const dropped = await forms.post(STATUS_SUBSCRIBE, { email: bot, fax: "x" }, { as: "form" });
    expect(dropped.status).toBe(303);
    expect(dropped.headers.get("location")).toBe(response.headers.get("location"));
    expect(await ses.to(bot)).toHaveLength(0);
  });

  test("each update goes to every subscriber once, in pages of the list", async () => {
    const readers = Array.from({ length: 6 }, (_, i) => address(`many${i}`));
    for (const reader of readers) await statusSubscriber(forms, ses, reader);
    const event = statusIncidentEvent({
      incident: { kind: "maintenance", name: "Database upgrade", status: "in_progress" },
      update: { status: "in_progress", body: "The upgrade has begun." },
    });
    await forms.bus.publish(event);
    for (const reader of readers) {
      const [copy] = await emailsArrive(ses, reader, "[In progress] Database upgrade");
      expect(copy?.body.text).toContain("Scheduled maintenance: Database upgrade");
      expect(copy?.destination.to).toEqual([reader]);
    }
  });
});

const natsUrl = requireService("NATS_URL");
if (natsUrl) {
  const suffix = Math.random().toString(36).slice(2, 8);
  const stream = `T_STATUS_${suffix.toUpperCase()}`;
  const onJetStream: FormsWorld = formsWorld({
    bus: async () => {
      const bus = await JetStreamBus.connect(natsUrl, { stream, subjectPrefix: `ts${suffix}.` });
      return {
        bus,
        close: async () => {
          await bus.close();
          const nc = await connect({ servers: natsUrl });
          await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
          await nc.close();
        },
      };
    },
  });
  describe("status page subscriptions on JetStream", () => {
    test("an update published on JetStream reaches a confirmed subscriber once", async () => {
      const email = address("jetstream");
      await statusSubscriber(onJetStream.forms, onJetStream.ses, email);
      const event = statusIncidentEvent();
      await onJetStream.forms.bus.publish(event);
      await emailsArrive(onJetStream.ses, email, SUBJECT);
      await Bun.sleep(1_000);
      expect(await emailsTo(onJetStream.ses, email, SUBJECT)).toHaveLength(1);
    });
  });
}
