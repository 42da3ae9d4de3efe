import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subscription } from "@newsroom/shared/bus/index";
import { loadConfig } from "@newsroom/shared/config";
import { auditEvents } from "@newsroom/shared/db/schema";
import { openMailer } from "@newsroom/shared/mailer";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { createWebhooksService } from "@newsroom/webhooks/app";
import { addMember } from "@newsroom/workspace/identity/members/service";
import { startEndpointDisabledConsumer } from "@newsroom/workspace/webhook-endpoints/disabled-notice";
import { and, eq } from "drizzle-orm";
import { type SesEmulator, startSesEmulator } from "../../services/forms/test/support/harness.ts";
import {
  type Fixture,
  random,
  webhooksFixture,
} from "../../services/webhooks/test/support/harness.ts";

/**
 * A flow across webhooks and the workspace: an endpoint disabled for failing is announced by the
 * webhooks service (`webhook_endpoint.disabled`); the workspace records it in the audit trail and
 * its organization's owners and admins get one email through SES (the emulator's inbox), saying
 * which endpoint, why and how to recover; nobody else, and never twice for one disabling.
 */
describe("the disabled-endpoint email", () => {
  let fx: Fixture;
  let ses: SesEmulator;
  let receiver: Receiver;
  let service: ServiceHandle;
  let workspace: Subscription;

  beforeAll(async () => {
    ses = await startSesEmulator();
    // Two attempts per delivery, 50 ms apart.
    fx = await webhooksFixture({ env: { WEBHOOK_RETRY_SCHEDULE: "0.05" } });
    receiver = startReceiver();
    service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 20 });
    const mail = loadConfig({ SES_ENDPOINT: ses.url, FORMS_FROM_EMAIL: "newsroom@example.com" });
    workspace = await startEndpointDisabledConsumer(
      { db: fx.db, mailer: openMailer(mail), appUrl: "https://app.example.com/app" },
      fx.bus,
    );
  });

  afterAll(async () => {
    await workspace.stop();
    await service.stop();
    receiver.stop();
    await fx.close();
    await ses.close();
  });

  test("owners and admins get exactly one email when failures disable the endpoint", async () => {
    const org = await fx.organization();
    const people = {} as Record<"owner" | "admin" | "editor", string>;
    for (const role of ["owner", "admin", "editor"] as const) {
      const email = `${role}-${random()}@example.com`;
      await addMember(fx.db, org, { email, role }, "admin");
      people[role] = email;
    }
    receiver.on("/down", () => new Response("no", { status: 500 }));
    const endpoint = await fx.endpoint(receiver.url("/down"), ["story.submitted"], org);

    // Three failed deliveries in a row disable it; more events meanwhile change nothing.
    for (let i = 0; i < 5; i++) await fx.submitted(org);
    await eventually(
      async () => {
        const row = await fx.endpointRow(endpoint.id);
        return row.status === "disabled";
      },
      { message: "the endpoint disabled" },
    );
    const row = await fx.endpointRow(endpoint.id);
    expect(row.disabledReason).toBe("failing");

    const mail = await eventually(async () => (await ses.to(people.owner))[0], {
      message: "the email",
    });
    // Everything still in flight has ended: no second email.
    await eventually(
      async () => (await fx.deliveriesOf(endpoint.id)).every((d) => d.status !== "pending"),
      { message: "no pending delivery" },
    );
    await Bun.sleep(500);
    expect(await ses.to(people.owner)).toHaveLength(1);
    expect(await ses.to(people.admin)).toHaveLength(1);
    expect(await ses.to(people.editor)).toHaveLength(0);
    expect(mail.destination.to.sort()).toEqual([people.admin, people.owner].sort());
    expect(mail.from).toContain("newsroom@example.com");
    expect(mail.subject).toBe(`Webhook endpoint disabled: ${receiver.url("/down")}`);
    const text = mail.body.text ?? "";
    expect(text).toContain(receiver.url("/down"));
    expect(text).toContain("3 deliveries in a row failed");
    expect(text).toContain("receiver answered 500");
    expect(text).toContain(`https://app.example.com/app/webhook-endpoints/${endpoint.id}`);
    expect(text).toContain("Enable the endpoint");
    expect(mail.body.html).toContain(
      `href="https://app.example.com/app/webhook-endpoints/${endpoint.id}"`,
    );

    // The workspace's audit trail holds the disabling once, by the webhooks service.
    const audit = await fx.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.organizationId, org), eq(auditEvents.subjectId, endpoint.id)));
    expect(audit.map((a) => [a.action, a.actor])).toEqual([
      ["webhook_endpoint.disabled", "webhooks"],
    ]);
  });
});
