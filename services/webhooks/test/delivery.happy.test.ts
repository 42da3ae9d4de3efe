import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { secretsKey } from "@newsroom/shared/config";
import { openDatabase } from "@newsroom/shared/db/index";
import { outboxEvents, webhookDeliveries } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import type { WebhookEventOut, WebhookTestEventOut } from "@newsroom/shared/records";
import type { ServiceHandle } from "@newsroom/shared/service";
import { requireService } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Hit, type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createWebhooksService } from "../src/app.ts";
import { DeliveryWorker } from "../src/delivery/worker.ts";
import { ALL_EVENTS, type Fixture, internalCall, webhooksFixture } from "./support/harness.ts";

function headersOf(hit: Hit): Record<string, string> {
  const headers: Record<string, string> = {};
  hit.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

let fx: Fixture;

beforeAll(async () => {
  fx = await webhooksFixture();
});

afterAll(async () => {
  await fx.close();
});

describe("the request a receiver gets", () => {
  let receiver: Receiver;
  let service: ServiceHandle;
  let org = "";

  beforeAll(async () => {
    org = await fx.organization();
    receiver = startReceiver();
    service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 50 });
  });

  afterAll(async () => {
    await service.stop();
    receiver.stop();
  });

  test("every event type: signed, verified by standardwebhooks, body rebuilt at send time", async () => {
    const endpoint = await fx.endpoint(receiver.url("/hooks"), ALL_EVENTS, org);
    const webhook = new Webhook(endpoint.secret);
    const published = await fx.story(org);
    const rejected = await fx.story(org);
    const steps = [
      {
        storyId: published.id,
        input: { action: "submit" },
        type: "story.submitted",
        status: "review_required",
        sequence: 1,
        previous: "draft",
      },
      {
        storyId: published.id,
        input: { action: "approve" },
        type: "story.approved",
        status: "approved",
        sequence: 2,
        previous: "review_required",
      },
      {
        storyId: published.id,
        input: { action: "publish" },
        type: "story.published",
        status: "published",
        sequence: 3,
        previous: "approved",
      },
      {
        storyId: published.id,
        input: { action: "unpublish" },
        type: "story.unpublished",
        status: "unpublished",
        sequence: 4,
        previous: "published",
      },
      {
        storyId: rejected.id,
        input: { action: "submit" },
        type: "story.submitted",
        status: "review_required",
        sequence: 1,
        previous: "draft",
      },
      {
        storyId: rejected.id,
        input: { action: "reject" as const, note: "Needs a source." },
        type: "story.rejected",
        status: "rejected",
        sequence: 2,
        previous: "review_required",
      },
    ] as const;
    for (const step of steps) {
      const eventId = await fx.transition(step.storyId, step.input);
      const hit = await eventually(
        () => receiver.hits.find((h) => h.headers.get("webhook-id") === eventId),
        { message: `the ${step.type} request` },
      );
      const [outbox] = await fx.db.select().from(outboxEvents).where(eq(outboxEvents.id, eventId));

      expect(hit.headers.get("content-type")).toBe("application/json");
      expect(hit.headers.get("user-agent")).toMatch(/webhooks\/1$/i);
      const timestamp = Number(hit.headers.get("webhook-timestamp"));
      expect(Math.abs(timestamp - hit.at / 1000)).toBeLessThan(2);
      expect(hit.headers.get("webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

      const body = webhook.verify(hit.body, headersOf(hit)) as WebhookEventOut;
      expect(body).toEqual({
        id: eventId,
        object: "event",
        type: step.type,
        created_at: outbox!.createdAt.toISOString(),
        data: {
          story_id: step.storyId,
          story: expect.any(Object),
          sequence: step.sequence,
          previous_status: step.previous,
        },
      });
      expect(body.data.story).toMatchObject({
        object: "story",
        id: step.storyId,
        status: step.status,
        title: "A story",
        type: "insight",
      });

      const delivery = await eventually(
        async () => {
          const row = await fx.delivery(endpoint.id, eventId);
          return row?.status === "delivered" ? row : null;
        },
        { message: "the delivery record" },
      );
      expect(delivery).toMatchObject({
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
        lockedUntil: null,
      });
      expect(delivery.deliveredAt).toBeInstanceOf(Date);
    }
    expect(receiver.at("/hooks")).toHaveLength(steps.length);
  });

  test("a story that is gone is sent as null", async () => {
    const endpoint = await fx.endpoint(receiver.url("/gone"), ["story.published"], org);
    const eventId = newId();
    const storyId = newId();
    await fx.db.insert(webhookDeliveries).values({
      id: newId(),
      organizationId: org,
      endpointId: endpoint.id,
      eventId,
      eventType: "story.published",
      storyId,
      eventCreatedAt: new Date("2026-01-02T03:04:05.000Z"),
      nextAttemptAt: new Date(),
    });
    const hit = await eventually(() => receiver.at("/gone")[0], { message: "the request" });
    expect(new Webhook(endpoint.secret).verify(hit.body, headersOf(hit))).toEqual({
      id: eventId,
      object: "event",
      type: "story.published",
      created_at: "2026-01-02T03:04:05.000Z",
      data: { story_id: storyId, story: null, sequence: null, previous_status: null },
    });
  });
});

describe("webhook.test, sent by the internal API", () => {
  let receiver: Receiver;
  let service: ServiceHandle;
  let org = "";

  beforeAll(async () => {
    org = await fx.organization();
    receiver = startReceiver();
    service = await createWebhooksService(fx.runtime({ WEBHOOK_RETRY_SCHEDULE: "0.05" }), {
      pollIntervalMs: 50,
    });
  });

  afterAll(async () => {
    await service.stop();
    receiver.stop();
  });

  test("goes once to the tested endpoint only, is never recorded, and answers the outcome", async () => {
    const tested = await fx.endpoint(receiver.url("/tested"), ["story.published"], org);
    await fx.endpoint(receiver.url("/bystander"), ALL_EVENTS, org);
    const answer = await internalCall(
      service,
      fx,
      "POST",
      `/orgs/${org}/webhook-endpoints/${tested.id}/test`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.test).toMatchObject({ status: "accepted", status_code: 200, error: null });

    const hit = receiver.at("/tested")[0]!;
    const body = new Webhook(tested.secret).verify(hit.body, headersOf(hit)) as WebhookTestEventOut;
    expect(body).toMatchObject({ object: "event", type: "webhook.test" });
    expect(body.data).toEqual({ endpoint_id: tested.id });
    expect(hit.headers.get("webhook-id")).toBe(body.id);
    expect(answer.body.test.event_id).toBe(body.id);
    expect(hit.headers.get("user-agent")).toMatch(/webhooks\/1$/i);
    await Bun.sleep(300);
    expect(receiver.at("/tested")).toHaveLength(1);
    expect(receiver.at("/bystander")).toHaveLength(0);
    expect(await fx.deliveriesOf(tested.id)).toHaveLength(0);
  });

  test("a failed test event says why, is not retried and does not count against the endpoint", async () => {
    receiver.on("/broken", () => new Response("no", { status: 500 }));
    const broken = await fx.endpoint(receiver.url("/broken"), ["story.published"], org);
    const answer = await internalCall(
      service,
      fx,
      "POST",
      `/orgs/${org}/webhook-endpoints/${broken.id}/test`,
    );
    expect(answer.body.test).toMatchObject({ status: "failed", status_code: 500 });
    expect(answer.body.test.error).toContain("500");
    await Bun.sleep(500);
    expect(receiver.at("/broken")).toHaveLength(1);
    expect(await fx.deliveriesOf(broken.id)).toHaveLength(0);
    expect(await fx.endpointRow(broken.id)).toMatchObject({
      status: "enabled",
      consecutiveFailures: 0,
    });
  });
});

describe("delivery workers", () => {
  let receiver: Receiver;
  let org = "";

  beforeAll(async () => {
    org = await fx.organization();
    receiver = startReceiver();
  });

  afterAll(async () => {
    receiver.stop();
  });

  const insertDue = async (endpointId: string, count: number, storyId: string | null = null) => {
    const rows = Array.from({ length: count }, () => ({
      id: newId(),
      organizationId: org,
      endpointId,
      eventId: newId(),
      eventType: "story.published" as const,
      storyId,
      eventCreatedAt: new Date(),
      nextAttemptAt: new Date(),
    }));
    await fx.db.insert(webhookDeliveries).values(rows);
    return rows;
  };

  const worker = (db = fx.db, concurrency = 8) =>
    new DeliveryWorker({
      db,
      secretsKey: secretsKey(fx.config),
      schedule: [0.05],
      pollIntervalMs: 20,
      concurrency,
      allowInsecureTargets: true,
    });

  const databaseUrl = requireService("DATABASE_URL");
  test.skipIf(!databaseUrl)(
    "two workers on PostgreSQL share the work and never send one delivery twice",
    async () => {
      receiver.on("/shared", async () => {
        await Bun.sleep(5);
        return new Response("ok");
      });
      const story = await fx.story(org);
      const endpoints = [
        await fx.endpoint(receiver.url("/shared"), ["story.published"], org),
        await fx.endpoint(receiver.url("/shared"), ["story.published"], org),
      ];
      const rows = [
        ...(await insertDue(endpoints[0]!.id, 150, story.id)),
        ...(await insertDue(endpoints[1]!.id, 150, story.id)),
      ];
      // Two replicas: each its own connection pool on the same database.
      const pools = [
        await openDatabase({ url: fx.database.url, max: 5 }),
        await openDatabase({ url: fx.database.url, max: 5 }),
      ];
      const workers = pools.map((pool) => worker(pool.db));
      for (const w of workers) w.start();
      try {
        await eventually(
          async () =>
            (await fx.db.select().from(webhookDeliveries)).filter(
              (row) => row.organizationId === org && row.status === "delivered",
            ).length === rows.length,
          { message: "every delivery", timeoutMs: 20_000 },
        );
      } finally {
        for (const w of workers) await w.stop();
        for (const pool of pools) await pool.close();
      }
      // Each event id reaches each endpoint's secret once: count by (webhook-id, signer).
      const perEvent = new Map<string, number>();
      for (const hit of receiver.at("/shared")) {
        const id = hit.headers.get("webhook-id")!;
        perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
      }
      expect(perEvent.size).toBe(rows.length);
      expect([...perEvent.values()].every((n) => n === 1)).toBe(true);
      expect(workers[0]!.attempts).toBeGreaterThan(0);
      expect(workers[1]!.attempts).toBeGreaterThan(0);
      expect(workers[0]!.attempts + workers[1]!.attempts).toBe(rows.length);
    },
    30_000,
  );

  test("a lapsed claim is taken again; a live one is left alone", async () => {
    const endpoint = await fx.endpoint(receiver.url("/claims"), ["story.published"], org);
    const [lapsed, live] = await insertDue(endpoint.id, 2);
    await fx.db
      .update(webhookDeliveries)
      .set({ lockedUntil: new Date(Date.now() - 1_000) })
      .where(eq(webhookDeliveries.id, lapsed!.id));
    await fx.db
      .update(webhookDeliveries)
      .set({ lockedUntil: new Date(Date.now() + 60_000) })
      .where(eq(webhookDeliveries.id, live!.id));
    const w = worker();
    w.start();
    try {
      await eventually(() => receiver.at("/claims")[0], { message: "the lapsed claim" });
      await Bun.sleep(300);
    } finally {
      await w.stop();
    }
    expect(receiver.at("/claims").map((hit) => hit.headers.get("webhook-id"))).toEqual([
      lapsed!.eventId,
    ]);
    expect((await fx.delivery(endpoint.id, live!.eventId))?.status).toBe("pending");
  });

  test("a stop waits for the attempts in flight and records them", async () => {
    receiver.on("/slow", async () => {
      await Bun.sleep(500);
      return new Response("ok");
    });
    const endpoint = await fx.endpoint(receiver.url("/slow"), ["story.published"], org);
    const [row] = await insertDue(endpoint.id, 1);
    const w = worker();
    w.start();
    await eventually(() => receiver.at("/slow")[0], { message: "the slow request to start" });
    const stopping = Date.now();
    await w.stop();
    expect(Date.now() - stopping).toBeGreaterThan(300);
    expect(await fx.delivery(endpoint.id, row!.eventId)).toMatchObject({
      status: "delivered",
      attempts: 1,
      lockedUntil: null,
    });
  });
});
