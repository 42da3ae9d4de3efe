import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cmsConnections, cmsPosts, cmsWrites } from "@newsroom/shared/db/schema";
import type { ServiceHandle } from "@newsroom/shared/service";
import { insertStory } from "@newsroom/shared/testing/builders";
import { eventually } from "@newsroom/shared/testing/eventually";
import { closedPort } from "@newsroom/shared/testing/ports";
import { eq } from "drizzle-orm";
import { createWebhooksService } from "../src/app.ts";
import { CMS_FAILING_AFTER } from "../src/cms/writer.ts";
import { type Fixture, internalCall, random, webhooksFixture } from "./support/harness.ts";
import { startWordPress, type WordPressSite } from "./support/wordpress.ts";

/**
 * What goes wrong with a real WordPress: a refused application password, a user who may not
 * publish, a site that does not answer. The check says so in plain words; a write records a
 * failed attempt with a clear `last_error` and, refused outright, does not walk the schedule.
 */
let fx: Fixture;
let wp: WordPressSite;
let service: ServiceHandle;

beforeAll(async () => {
  [fx, wp] = await Promise.all([
    webhooksFixture({ env: { WEBHOOK_RETRY_SCHEDULE: "0.05,0.05,0.05,0.05,0.05,0.05" } }),
    startWordPress(),
  ]);
  service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 50 });
});

afterAll(async () => {
  await service?.stop();
  await wp?.stop();
  await fx?.close();
});

async function connection(org: string, fields: Record<string, string>) {
  const created = await internalCall(service, fx, "POST", `/orgs/${org}/cms-connections`, {
    kind: "wordpress",
    ...fields,
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const check = (org: string, id: string) =>
  internalCall(service, fx, "POST", `/orgs/${org}/cms-connections/${id}/check`);

async function publish(org: string) {
  const story = await insertStory(fx.db, org, {
    type: "insight",
    slug: `s-${random()}`,
    title: "A story",
    body: [{ type: "paragraph", text: "Words." }],
  });
  for (const action of ["submit", "approve", "publish"] as const) {
    await fx.transition(story.id, { action });
  }
  return story.id;
}

describe("a WordPress that refuses", () => {
  test("refused credentials: the check says so, the write fails at once with a clear reason", async () => {
    const org = await fx.organization();
    const id = await connection(org, {
      url: wp.url,
      username: wp.admin.username,
      application_password: "abcd efgh ijkl mnop qrst uvwx",
    });
    const answer = await check(org, id);
    expect(answer.status).toBe(200);
    expect(answer.body.ok).toBe(false);
    expect(answer.body.problem).toBe("refused_credentials");
    expect(answer.body.message).toContain("refused the user name or the application password");
    expect(answer.body.connection.last_error).toBe(answer.body.message);

    const storyId = await publish(org);
    const [write] = await eventually(
      () => fx.db.select().from(cmsWrites).where(eq(cmsWrites.storyId, storyId)),
      (rows) => rows.length === 1 && rows[0]!.failedAt !== null,
      { message: "the write, failed", timeoutMs: 30_000 },
    );
    // Refused outright: one attempt, not the schedule's eight.
    expect(write!.attempts).toBe(1);
    expect(write!.lastError).toBe(
      "WordPress refused the user name or the application password (HTTP 401).",
    );
    expect(await fx.db.select().from(cmsPosts).where(eq(cmsPosts.storyId, storyId))).toEqual([]);
    const writes = await internalCall(
      service,
      fx,
      "GET",
      `/orgs/${org}/stories/${storyId}/cms-writes`,
    );
    expect(writes.body.data[0]).toMatchObject({
      status: "failed",
      attempts: 1,
      last_error: write!.lastError,
      connection_id: id,
    });
  });

  test("a user who may not publish: the check names the missing capability", async () => {
    const org = await fx.organization();
    const id = await connection(org, {
      url: wp.url,
      username: wp.subscriber.username,
      application_password: wp.subscriber.applicationPassword,
    });
    const answer = await check(org, id);
    expect(answer.body.ok).toBe(false);
    expect(answer.body.problem).toBe("missing_capability");
    expect(answer.body.message).toBe(
      "The WordPress user may not publish posts or upload files. Give the user the Author role or a higher one.",
    );
    const storyId = await publish(org);
    const [write] = await eventually(
      () => fx.db.select().from(cmsWrites).where(eq(cmsWrites.storyId, storyId)),
      (rows) => rows.length === 1 && rows[0]!.failedAt !== null,
      { message: "the write, refused", timeoutMs: 30_000 },
    );
    expect(write!.attempts).toBe(1);
    expect(write!.lastError).toContain("give the user the Author role or a higher one");
  });

  test("a site that does not answer: unreachable, retried, then the connection is failing", async () => {
    const org = await fx.organization();
    const id = await connection(org, {
      url: `http://127.0.0.1:${await closedPort()}`,
      username: "editor",
      application_password: "abcd efgh ijkl mnop qrst uvwx",
    });
    const answer = await check(org, id);
    expect(answer.body.problem).toBe("unreachable");
    expect(answer.body.message).toBe("The site refused the connection.");

    const storyId = await publish(org);
    const [write] = await eventually(
      () => fx.db.select().from(cmsWrites).where(eq(cmsWrites.storyId, storyId)),
      (rows) => rows.length === 1 && rows[0]!.failedAt !== null,
      { message: "the write, failed after every retry", timeoutMs: 30_000 },
    );
    expect(write!.attempts).toBe(7);
    expect(write!.lastError).toBe("The site refused the connection.");
    const [row] = await fx.db.select().from(cmsConnections).where(eq(cmsConnections.id, id));
    expect(row!.consecutiveFailures).toBeGreaterThanOrEqual(CMS_FAILING_AFTER);
    expect(row!.status).toBe("failing");
    expect(row!.lastError).toBe("The site refused the connection.");
  });
});
