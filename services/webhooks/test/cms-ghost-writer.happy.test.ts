import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cmsPosts, cmsWrites } from "@newsroom/shared/db/schema";
import type { ServiceHandle } from "@newsroom/shared/service";
import { applyStoryAction, insertStory } from "@newsroom/shared/testing/builders";
import { eventually } from "@newsroom/shared/testing/eventually";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { type GhostAdminServer, startGhostAdminServer } from "./support/ghost-admin-server.ts";
import { type Fixture, internalCall, random, webhooksFixture } from "./support/harness.ts";

/**
 * A Ghost connection through the writer: added with its Admin API key, checked, and a published
 * story written as a Ghost post once (its mapping recorded), then taken down on unpublish.
 * Against the stand-in Admin API server (see its header for why not Ghost itself).
 */
let fx: Fixture;
let ghost: GhostAdminServer;
let service: ServiceHandle;

beforeAll(async () => {
  fx = await webhooksFixture();
  ghost = startGhostAdminServer();
  service = await createWebhooksService(fx.runtime(), {
    pollIntervalMs: 50,
    reconcileIntervalMs: 200,
    reconcileAfterMs: 0,
  });
});

afterAll(async () => {
  await service?.stop();
  await ghost?.stop();
  await fx?.close();
});

describe("writing into Ghost through the writer", () => {
  test("check, publish, unpublish", async () => {
    const created = await internalCall(service, fx, "POST", `/orgs/${fx.orgId}/cms-connections`, {
      kind: "ghost",
      url: ghost.url(),
      admin_api_key: ghost.adminApiKey,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const checked = await internalCall(
      service,
      fx,
      "POST",
      `/orgs/${fx.orgId}/cms-connections/${id}/check`,
    );
    expect(checked.body).toMatchObject({ ok: true, connection: { status: "working" } });

    const story = await insertStory(fx.db, fx.orgId, {
      type: "insight",
      slug: `s-${random()}`,
      title: "Ferry timetable changes",
      body: [{ type: "paragraph", text: "New times from Monday." }],
    });
    for (const action of ["submit", "approve", "publish"] as const) {
      await fx.transition(story.id, { action });
    }
    const done = (n: number) =>
      eventually(
        () => fx.db.select().from(cmsWrites).where(eq(cmsWrites.storyId, story.id)),
        (rows) => rows.length === n && rows.every((row) => row.doneAt !== null),
        { message: `${n} writes into Ghost, done`, timeoutMs: 30_000 },
      );
    await done(1);
    const [mapping] = await fx.db.select().from(cmsPosts).where(eq(cmsPosts.storyId, story.id));
    const post = ghost.posts.get(mapping!.remoteId)!;
    expect(post.status).toBe("published");
    expect(post.title).toBe("Ferry timetable changes");
    expect(post.html).toContain("New times from Monday.");
    expect(ghost.posts.size).toBe(1);

    await fx.transition(story.id, { action: "unpublish" });
    await done(2);
    expect(ghost.posts.get(mapping!.remoteId)!.status).toBe("draft");
  });

  test("a publish the bus never carried is written by the periodic pass", async () => {
    const story = await insertStory(fx.db, fx.orgId, {
      type: "insight",
      slug: `s-${random()}`,
      title: "Lost on the bus",
      body: [{ type: "paragraph", text: "Still written." }],
    });
    // The outbox rows only: no relay publishes them.
    for (const action of ["submit", "approve", "publish"] as const) {
      await applyStoryAction(fx.db, story.id, action);
    }
    const [write] = await eventually(
      () => fx.db.select().from(cmsWrites).where(eq(cmsWrites.storyId, story.id)),
      (rows) => rows.length === 1 && rows[0]!.doneAt !== null,
      { message: "the reconciled write, done", timeoutMs: 30_000 },
    );
    expect(write!.performed).toBe("create");
    const titles = [...ghost.posts.values()].map((post) => post.title);
    expect(titles.filter((title) => title === "Lost on the bus")).toHaveLength(1);
  });
});
