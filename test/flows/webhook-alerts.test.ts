import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subscription } from "@newsroom/shared/bus/index";
import { loadConfig } from "@newsroom/shared/config";
import { auditEvents, webhookAlerts } from "@newsroom/shared/db/schema";
import { OPERATIONAL_EVENT_TYPES } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { openMailer } from "@newsroom/shared/mailer";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import type { SesEmail } from "@newsroom/shared/testing/ses-emulator";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { createWebhooksService } from "@newsroom/webhooks/app";
import { personActor } from "@newsroom/workspace/audit";
import { addMember } from "@newsroom/workspace/identity/members/service";
import { startEndpointAlertConsumer } from "@newsroom/workspace/webhook-endpoints/alert-notice";
import { startEndpointDisabledConsumer } from "@newsroom/workspace/webhook-endpoints/disabled-notice";
import { and, eq, isNull, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { type SesEmulator, startSesEmulator } from "../../services/forms/test/support/harness.ts";
import {
  busKinds,
  type Fixture,
  random,
  SHORT_SCHEDULE,
  webhooksFixture,
} from "../../services/webhooks/test/support/harness.ts";

/**
 * A flow across webhooks and the workspace: an endpoint whose receiver keeps failing raises its
 * alerts (50, 70 and 90% of the disable threshold, a delivery exhausted, then disabled), each
 * emailed once through SES to the organization's owners and admins and the endpoint's creator,
 * and each sent, signed, to the organization's other endpoints subscribed to it (never to the
 * failing one, never to another organization), with two dispatcher replicas at work.
 *
 * With eight attempts per delivery and three failed deliveries disabling an endpoint, the
 * threshold is 24 failed attempts in a row: 50% at 12, 70% at 17, 90% at 22.
 */
for (const kind of busKinds())
  describe(`webhook alerts on the ${kind} bus`, () => {
    let fx: Fixture;
    let ses: SesEmulator;
    let receiver: Receiver;
    let replicas: ServiceHandle[] = [];
    let workspace: Subscription[] = [];

    const startReplica = () =>
      createWebhooksService(fx.runtime(), { pollIntervalMs: 20, reconcileIntervalMs: 100 });

    beforeAll(async () => {
      ses = await startSesEmulator();
      fx = await webhooksFixture({ env: { WEBHOOK_RETRY_SCHEDULE: SHORT_SCHEDULE } });
      await fx.useBus(kind);
      receiver = startReceiver();
      receiver.on("/down", () => new Response("no", { status: 500 }));
      replicas = [await startReplica(), await startReplica()];
      const mail = loadConfig({ SES_ENDPOINT: ses.url, FORMS_FROM_EMAIL: "newsroom@example.com" });
      const deps = { db: fx.db, mailer: openMailer(mail), appUrl: "https://app.example.com/app" };
      workspace = [
        await startEndpointAlertConsumer(deps, fx.bus),
        await startEndpointDisabledConsumer(deps, fx.bus),
      ];
    });

    afterAll(async () => {
      for (const subscription of workspace) await subscription.stop();
      for (const replica of replicas) await replica.stop();
      receiver.stop();
      await fx.close();
      await ses.close();
    });

    /** An organization with an owner, an admin, the editor who creates its endpoint and another. */
    async function team() {
      const org = await fx.organization();
      const people = {} as Record<"owner" | "admin" | "creator" | "editor", string>;
      const ids = {} as Record<keyof typeof people, string>;
      for (const [who, role] of [
        ["owner", "owner"],
        ["admin", "admin"],
        ["creator", "editor"],
        ["editor", "editor"],
      ] as const) {
        const email = `${who}-${random()}@example.com`;
        const { person } = await addMember(fx.db, org, { email, role }, "admin");
        people[who] = email;
        ids[who] = person.id;
      }
      return { org, people, ids };
    }

    /** The endpoint's creation as the web app audits it, by that person. */
    async function createdBy(org: string, endpointId: string, personId: string) {
      await fx.db.insert(auditEvents).values({
        id: newId(),
        organizationId: org,
        action: "webhook_endpoint.created",
        subjectId: endpointId,
        actor: personActor(personId),
      });
    }

    const subjects = (mails: SesEmail[]) => mails.map((mail) => mail.subject).sort();

    test("each threshold, the exhaustion and the disabling: one email each and one signed operational event each", async () => {
      const { org, people, ids } = await team();
      const failing = await fx.endpoint(
        receiver.url("/down"),
        ["story.submitted", ...OPERATIONAL_EVENT_TYPES],
        org,
      );
      await createdBy(org, failing.id, ids.creator);
      const pager = await fx.endpoint(receiver.url("/pager"), [...OPERATIONAL_EVENT_TYPES], org);
      const stories = await fx.endpoint(receiver.url("/stories"), ["story.submitted"], org);
      const elsewhere = await fx.endpoint(
        receiver.url("/elsewhere"),
        [...OPERATIONAL_EVENT_TYPES],
        await fx.organization(),
      );

      for (let i = 0; i < 3; i++) await fx.submitted(org);
      await eventually(async () => (await fx.endpointRow(failing.id)).status === "disabled", {
        message: "the endpoint disabled",
        timeoutMs: 30_000,
      });
      const url = receiver.url("/down");
      const expected = [
        `Webhook delivery failed: story.submitted to ${url}`,
        `Webhook endpoint disabled: ${url}`,
        `Webhook endpoint failing (50%): ${url}`,
        `Webhook endpoint failing (70%): ${url}`,
        `Webhook endpoint failing (90%): ${url}`,
      ].sort();
      await eventually(async () => (await ses.to(people.owner)).length >= expected.length, {
        message: "five emails",
        timeoutMs: 15_000,
      });
      await eventually(async () => receiver.at("/pager").length >= expected.length, {
        message: "five operational events",
        timeoutMs: 15_000,
      });
      // Whatever is still in flight has ended: nothing more comes.
      await Bun.sleep(700);

      const mails = await ses.to(people.owner);
      expect(subjects(mails)).toEqual(expected);
      expect(subjects(await ses.to(people.admin))).toEqual(expected);
      expect(subjects(await ses.to(people.creator))).toEqual(expected);
      expect(await ses.to(people.editor)).toHaveLength(0);
      const half = mails.find((mail) => mail.subject.includes("(50%)"))!;
      expect(half.destination.to).toEqual([people.admin, people.creator, people.owner].sort());
      expect(half.body.text).toContain("12 attempts in a row failed");
      expect(half.body.text).toContain(
        "50% of the 24 attempts that three failed deliveries make before the endpoint is disabled",
      );
      expect(half.body.text).toContain("receiver answered 500");
      expect(half.body.text).toContain(
        `https://app.example.com/app/webhook-endpoints/${failing.id}`,
      );
      const exhausted = mails.find((mail) => mail.subject.startsWith("Webhook delivery failed"))!;
      expect(exhausted.body.text).toContain("8 attempts failed");
      expect(exhausted.body.html).toContain("https://app.example.com/app/webhook-deliveries/");

      // Signed like every delivery, to the organization's subscribed endpoint only.
      const verifier = new Webhook(pager.secret);
      const events = receiver.at("/pager").map((hit) =>
        verifier.verify(hit.body, {
          "webhook-id": hit.headers.get("webhook-id")!,
          "webhook-timestamp": hit.headers.get("webhook-timestamp")!,
          "webhook-signature": hit.headers.get("webhook-signature")!,
        }),
      ) as { id: string; type: string; data: Record<string, unknown> }[];
      expect(events.map((event) => event.type).sort()).toEqual([
        "webhook_delivery.exhausted",
        "webhook_endpoint.disabled",
        "webhook_endpoint.failing",
        "webhook_endpoint.failing",
        "webhook_endpoint.failing",
      ]);
      for (const event of events) {
        expect(event.data.endpoint_id).toBe(failing.id);
        expect(event.data.url).toBe(url);
      }
      const thresholds = events
        .filter((event) => event.type === "webhook_endpoint.failing")
        .map((event) => [event.data.threshold_percent, event.data.failed_attempts_in_a_row]);
      expect(thresholds.sort()).toEqual([
        [50, 12],
        [70, 17],
        [90, 22],
      ]);
      const disabled = events.find((event) => event.type === "webhook_endpoint.disabled")!;
      expect(disabled.data).toMatchObject({ reason: "failing", failed_in_a_row: 3 });
      // The same fact as the workspace heard it: one id.
      const [audited] = await fx.db
        .select()
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.subjectId, failing.id),
            eq(auditEvents.action, "webhook_endpoint.disabled"),
          ),
        );
      expect(disabled.id).toBe(audited!.id);

      // Not to the failing endpoint itself, not to story-only endpoints, not to another organization.
      const failingTypes = receiver.at("/down").map((hit) => JSON.parse(hit.body).type);
      expect(new Set(failingTypes)).toEqual(new Set(["story.submitted"]));
      const storyTypes = receiver.at("/stories").map((hit) => JSON.parse(hit.body).type);
      expect(new Set(storyTypes)).toEqual(new Set(["story.submitted"]));
      expect(receiver.at("/elsewhere")).toHaveLength(0);
      expect((await fx.deliveriesOf(elsewhere.id)).length).toBe(0);
      expect((await fx.deliveriesOf(stories.id)).length).toBe(3);

      // A restart that publishes every alert again (as if a replica died after publishing and
      // before marking it) and a new replica taking over: no email and no event twice.
      await fx.db
        .update(webhookAlerts)
        .set({ announcedAt: null })
        .where(eq(webhookAlerts.endpointId, failing.id));
      const stopped = replicas.shift()!;
      await stopped.stop();
      replicas.push(await startReplica());
      await eventually(
        async () =>
          (
            await fx.db
              .select()
              .from(webhookAlerts)
              .where(
                and(eq(webhookAlerts.endpointId, failing.id), isNull(webhookAlerts.announcedAt)),
              )
          ).length === 0,
        { message: "announced again", timeoutMs: 10_000 },
      );
      await Bun.sleep(500);
      expect(subjects(await ses.to(people.owner))).toEqual(expected);
      expect(receiver.at("/pager")).toHaveLength(expected.length);
      const alerts = await fx.db
        .select()
        .from(webhookAlerts)
        .where(eq(webhookAlerts.endpointId, failing.id));
      expect(alerts).toHaveLength(expected.length);
    }, 90_000);

    test("a success ends the run: the endpoint's state resets, and the next run alerts again after the quiet hour", async () => {
      const { org, people } = await team();
      // The receiver fails a run's first 14 requests, then answers 200: 12 make 50%; 70% (17)
      // is never reached.
      let failuresLeft = 0;
      receiver.on("/flaky", () => new Response("", { status: failuresLeft-- > 0 ? 500 : 200 }));
      const flaky = await fx.endpoint(receiver.url("/flaky"), ["story.submitted"], org);
      const fiftyPercent = async () =>
        (await ses.to(people.owner)).filter((mail) => mail.subject.includes("(50%)"));

      /** Two events, 14 failed attempts in a row, then a success ends the run. */
      async function run() {
        failuresLeft = 14;
        const events = [(await fx.submitted(org)).eventId, (await fx.submitted(org)).eventId];
        await eventually(
          async () => {
            const deliveries = await fx.deliveriesOf(flaky.id);
            const ours = deliveries.filter((delivery) => events.includes(delivery.eventId));
            return ours.length === 2 && ours.every((delivery) => delivery.status !== "pending");
          },
          { message: "the run's deliveries done", timeoutMs: 20_000 },
        );
        expect(failuresLeft).toBeLessThanOrEqual(0);
        const row = await eventually(
          () => fx.endpointRow(flaky.id),
          (row) => row.failingSince === null,
          { message: "the run ended" },
        );
        expect(row.failedAttemptsInARow).toBe(0);
        expect(row.failureAlertPercent).toBe(0);
        expect(row.status).toBe("enabled");
      }

      await run();
      await eventually(async () => (await fiftyPercent()).length === 1, { message: "the email" });
      // The failing alerts: the 14 failures may also exhaust one delivery (8 and 6 attempts),
      // whose `webhook_delivery.exhausted` alert is another kind, with a quiet hour of its own.
      const alertsOf = async () =>
        (
          await fx.db
            .select()
            .from(webhookAlerts)
            .where(
              and(
                eq(webhookAlerts.endpointId, flaky.id),
                eq(webhookAlerts.type, "webhook_endpoint.failing"),
              ),
            )
        ).length;
      expect(await alertsOf()).toBe(1);
      // Again within the hour: 50% again, but no new alert and no email.
      await run();
      await Bun.sleep(500);
      expect(await fiftyPercent()).toHaveLength(1);
      expect(await alertsOf()).toBe(1);
      // An hour later, a new run is emailed again.
      await fx.db
        .update(webhookAlerts)
        .set({ createdAt: sql`${webhookAlerts.createdAt} - interval '2 hours'` })
        .where(eq(webhookAlerts.endpointId, flaky.id));
      await run();
      await eventually(async () => (await fiftyPercent()).length === 2, {
        message: "the second email",
      });
      expect(await alertsOf()).toBe(2);
    }, 120_000);
  });
