import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cmsWrites, outboxEvents } from "@newsroom/shared/db/schema";
import type { ServiceHandle } from "@newsroom/shared/service";
import { insertStory } from "@newsroom/shared/testing/builders";
import { eventually } from "@newsroom/shared/testing/eventually";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { CMS_WRITER_CONSUMER, recordCmsWrites } from "../src/cms/writer.ts";
import { storyEventOf } from "../src/fan-out/service.ts";
import { type GhostAdminServer, startGhostAdminServer } from "./support/ghost-admin-server.ts";
import {
  busKinds,
  type Fixture,
  internalCall,
  random,
  webhooksFixture,
} from "./support/harness.ts";

/**
 * The CMS writer hears story events on either bus: the in-process one (embedded) and JetStream
 * (distributed, its durable consumer `webhooks-cms-writer`). The periodic pass is held off, so
 * only the bus can bring the event; a redelivered event adds no second write.
 */
let fx: Fixture;
let ghost: GhostAdminServer;

beforeAll(async () => {
  fx = await webhooksFixture();
  ghost = startGhostAdminServer();
});

afterAll(async () => {
  await ghost?.stop();
  await fx?.close();
});

for (const kind of busKinds()) {
  describe(`the CMS writer on the ${kind} bus`, () => {
    let service: ServiceHandle;
    let org = "";

    beforeAll(async () => {
      await fx.useBus(kind);
      org = await fx.organization();
      service = await createWebhooksService(fx.runtime(), {
        pollIntervalMs: 50,
        reconcileAfterMs: 3_600_000,
        consumerName: `fanout-${kind}`,
        cmsConsumerName: `${CMS_WRITER_CONSUMER}-${kind}`,
      });
      const created = await internalCall(service, fx, "POST", `/orgs/${org}/cms-connections`, {
        kind: "ghost",
        url: ghost.url(),
        admin_api_key: ghost.adminApiKey,
      });
      expect(created.status).toBe(201);
    });

    afterAll(async () => {
      await service?.stop();
    });

    test("a published story is written once", async () => {
      const story = await insertStory(fx.db, org, {
        type: "insight",
        slug: `s-${random()}`,
        title: `Heard on the ${kind} bus`,
      });
      for (const action of ["submit", "approve"] as const) {
        await fx.transition(story.id, { action });
      }
      const eventId = await fx.transition(story.id, { action: "publish" });
      const [write] = await eventually(
        () => fx.db.select().from(cmsWrites).where(eq(cmsWrites.storyId, story.id)),
        (rows) => rows.length === 1 && rows[0]!.doneAt !== null,
        { message: "the write, done", timeoutMs: 30_000 },
      );
      expect(write!.eventId).toBe(eventId);
      expect(write!.performed).toBe("create");
      // The same event again (the bus delivers at least once): no second write.
      const [row] = await fx.db.select().from(outboxEvents).where(eq(outboxEvents.id, eventId));
      expect(await recordCmsWrites(fx.db, storyEventOf(row!))).toBe(0);
      const titles = [...ghost.posts.values()].map((post) => post.title);
      expect(titles.filter((title) => title === `Heard on the ${kind} bus`)).toHaveLength(1);
    });
  });
}
