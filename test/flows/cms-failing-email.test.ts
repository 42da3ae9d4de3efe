import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subscription } from "@newsroom/shared/bus/index";
import { loadConfig } from "@newsroom/shared/config";
import { auditEvents, cmsConnections } from "@newsroom/shared/db/schema";
import { openMailer } from "@newsroom/shared/mailer";
import type { ServiceHandle } from "@newsroom/shared/service";
import { insertStory } from "@newsroom/shared/testing/builders";
import { eventually } from "@newsroom/shared/testing/eventually";
import { closedPort } from "@newsroom/shared/testing/ports";
import { createWebhooksService } from "@newsroom/webhooks/app";
import { startCmsFailingConsumer } from "@newsroom/workspace/cms-connections/failing-notice";
import { addMember } from "@newsroom/workspace/identity/members/service";
import { and, eq } from "drizzle-orm";
import { type SesEmulator, startSesEmulator } from "../../services/forms/test/support/harness.ts";
import {
  type Fixture,
  internalCall,
  random,
  webhooksFixture,
} from "../../services/webhooks/test/support/harness.ts";

/**
 * A flow across webhooks and the workspace: writes into a CMS that does not answer keep failing;
 * the webhooks service marks the connection failing and announces it (`cms_connection.failing`);
 * the workspace audits it and the organization's owners get one email, nobody else, never twice.
 */
describe("the failing CMS connection email", () => {
  let fx: Fixture;
  let ses: SesEmulator;
  let service: ServiceHandle;
  let workspace: Subscription;

  beforeAll(async () => {
    ses = await startSesEmulator();
    fx = await webhooksFixture({ env: { WEBHOOK_RETRY_SCHEDULE: "0.05,0.05,0.05,0.05,0.05" } });
    service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 20 });
    const mail = loadConfig({ SES_ENDPOINT: ses.url, FORMS_FROM_EMAIL: "newsroom@example.com" });
    workspace = await startCmsFailingConsumer(
      { db: fx.db, mailer: openMailer(mail), appUrl: "https://app.example.com/app" },
      fx.bus,
    );
  });

  afterAll(async () => {
    await workspace?.stop();
    await service?.stop();
    await fx?.close();
    await ses?.close();
  });

  test("the owners get exactly one email", async () => {
    const org = await fx.organization();
    const people = {} as Record<"owner" | "admin", string>;
    for (const role of ["owner", "admin"] as const) {
      const email = `${role}-${random()}@example.com`;
      await addMember(fx.db, org, { email, role }, "admin");
      people[role] = email;
    }
    const created = await internalCall(service, fx, "POST", `/orgs/${org}/cms-connections`, {
      kind: "wordpress",
      url: `http://127.0.0.1:${await closedPort()}`,
      username: "editor",
      application_password: "abcd efgh ijkl mnop qrst uvwx",
    });
    const id = created.body.id as string;
    for (let i = 0; i < 2; i++) {
      const story = await insertStory(fx.db, org, {
        type: "insight",
        slug: `s-${random()}`,
        title: "A story",
      });
      for (const action of ["submit", "approve", "publish"] as const) {
        await fx.transition(story.id, { action });
      }
    }
    await eventually(
      async () =>
        (await fx.db.select().from(cmsConnections).where(eq(cmsConnections.id, id)))[0]?.status,
      (status) => status === "failing",
      { message: "the connection marked failing", timeoutMs: 30_000 },
    );
    const mail = await eventually(async () => (await ses.to(people.owner))[0], {
      message: "the email to the owner",
      timeoutMs: 15_000,
    });
    expect(mail.subject).toContain("CMS connection failing: http://127.0.0.1:");
    expect(mail.destination.to).toEqual([people.owner]);
    expect(mail.body.html).toContain("The site refused the connection.");
    expect(mail.body.html).toContain("/cms-connections");
    // Every write has ended: still one email, and the admin got none.
    await Bun.sleep(500);
    expect(await ses.to(people.owner)).toHaveLength(1);
    expect(await ses.to(people.admin)).toHaveLength(0);
    const audit = await fx.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectId, id), eq(auditEvents.action, "cms_connection.failing")));
    expect(audit).toHaveLength(1);
  });
});
