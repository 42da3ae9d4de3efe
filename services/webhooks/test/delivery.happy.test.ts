import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { secretsKey } from "@newsroom/shared/config";
import { openDatabase } from "@newsroom/shared/db/index";
import {
  outboxEvents,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from "@newsroom/shared/db/schema";
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
      // Replicas take turns at a busy endpoint within a test's time: a turn wanted is seen at a
      // renewal (every quarter of the lease) and given after 300 ms.
      leaseMs: 1_000,
      leaseTenureMs: 300,
      allowInsecureTargets: true,
    });

  const databaseUrl = requireService("DATABASE_URL");

  /**
   * Replicas on PostgreSQL, each its own connection pool on the same database, until every row
   * is delivered. The receiver counts each path's requests open at once.
   */
  const runReplicas = async (paths: string[], perPath: number, answerMs: number, slots = 8) => {
    const open = new Map<string, number>();
    const mostOpen = new Map<string, number>();
    for (const path of paths) {
      receiver.on(path, async () => {
        open.set(path, (open.get(path) ?? 0) + 1);
        mostOpen.set(path, Math.max(open.get(path)!, mostOpen.get(path) ?? 0));
        await Bun.sleep(answerMs);
        open.set(path, open.get(path)! - 1);
        return new Response("ok");
      });
    }
    const story = await fx.story(org);
    const rows: { id: string }[] = [];
    for (const path of paths) {
      const endpoint = await fx.endpoint(receiver.url(path), ["story.published"], org);
      rows.push(...(await insertDue(endpoint.id, perPath, story.id)));
    }
    const pools = [
      await openDatabase({ url: fx.database.url, max: 5 }),
      await openDatabase({ url: fx.database.url, max: 5 }),
    ];
    const workers = pools.map((pool) => worker(pool.db, slots));
    for (const w of workers) w.start();
    try {
      const ids = new Set(rows.map((row) => row.id));
      await eventually(
        async () =>
          (await fx.db.select().from(webhookDeliveries)).filter(
            (row) => ids.has(row.id) && row.status === "delivered",
          ).length === rows.length,
        { message: "every delivery", timeoutMs: 20_000 },
      );
    } finally {
      for (const w of workers) await w.stop();
      for (const pool of pools) await pool.close();
    }
    // Each event id reaches each endpoint once.
    const perEvent = new Map<string, number>();
    for (const hit of receiver.hits.filter((hit) => paths.includes(hit.path))) {
      const id = hit.headers.get("webhook-id")!;
      perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
    }
    expect(perEvent.size).toBe(rows.length);
    expect([...perEvent.values()].every((n) => n === 1)).toBe(true);
    expect(workers[0]!.attempts + workers[1]!.attempts).toBe(rows.length);
    return { workers, mostOpen };
  };

  test.skipIf(!databaseUrl)(
    "two workers on PostgreSQL share the endpoints, never send one delivery twice nor pass a cap",
    async () => {
      // Four slots each: a worker holds eight deliveries, less than one endpoint's backlog, so
      // the other takes the next endpoints.
      const paths = ["/shared-0", "/shared-1", "/shared-2", "/shared-3"];
      const { workers, mostOpen } = await runReplicas(paths, 60, 5, 4);
      expect(workers[0]!.attempts).toBeGreaterThan(0);
      expect(workers[1]!.attempts).toBeGreaterThan(0);
      for (const path of paths) expect(mostOpen.get(path)).toBeLessThanOrEqual(4);
    },
    30_000,
  );

  test.skipIf(!databaseUrl)(
    "two workers take turns at one busy endpoint, never more than its cap in flight",
    async () => {
      // 600 requests of 10 ms, four at once: about 1.5 s of work, five tenures of a lease.
      const { workers, mostOpen } = await runReplicas(["/busy"], 600, 10);
      expect(workers[0]!.attempts).toBeGreaterThan(0);
      expect(workers[1]!.attempts).toBeGreaterThan(0);
      expect(mostOpen.get("/busy")).toBe(4);
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

  /** Eight deliveries to an endpoint whose receiver answers after `answerMs`: four go at once. */
  const queuedBehindTheCap = async (path: string, answerMs: number) => {
    receiver.on(path, async () => {
      await Bun.sleep(answerMs);
      return new Response("ok");
    });
    const endpoint = await fx.endpoint(receiver.url(path), ["story.published"], org);
    const rows = await insertDue(endpoint.id, 8);
    const w = new DeliveryWorker({
      db: fx.db,
      secretsKey: secretsKey(fx.config),
      schedule: [60],
      pollIntervalMs: 20,
      // Renewals (and the look at the endpoints' status) every 100 ms.
      leaseMs: 400,
      allowInsecureTargets: true,
    });
    w.start();
    await eventually(() => receiver.at(path).length === 4, { message: "four requests at once" });
    const states = async () => {
      const attempts = await fx.db.select().from(webhookAttempts);
      return Promise.all(
        rows.map(async (row) => ({
          delivery: (await fx.delivery(endpoint.id, row.eventId))!,
          attempts: attempts.filter((attempt) => attempt.deliveryId === row.id).length,
        })),
      );
    };
    return { endpoint, w, states };
  };

  test("a stop gives back the deliveries queued behind the cap, unsent and their attempts unopened", async () => {
    const { w, states } = await queuedBehindTheCap("/queued-stop", 300);
    await w.stop();
    expect(receiver.at("/queued-stop")).toHaveLength(4);
    const after = await states();
    const sent = after.filter(({ delivery }) => delivery.status === "delivered");
    const unsent = after.filter(({ delivery }) => delivery.status === "pending");
    expect(sent).toHaveLength(4);
    expect(sent.every(({ delivery, attempts }) => delivery.attempts === 1 && attempts === 1)).toBe(
      true,
    );
    // The other four are as they were before any claim: no attempt, nothing held.
    expect(unsent).toHaveLength(4);
    for (const { delivery, attempts } of unsent) {
      expect({
        attempts: delivery.attempts,
        lockedUntil: delivery.lockedUntil,
        logged: attempts,
      }).toEqual({ attempts: 0, lockedUntil: null, logged: 0 });
    }
  });

  test("deliveries queued for an endpoint disabled meanwhile are not sent", async () => {
    const { endpoint, w, states } = await queuedBehindTheCap("/queued-disabled", 600);
    try {
      await fx.db
        .update(webhookEndpoints)
        .set({ status: "disabled", disabledReason: "by_client" })
        .where(eq(webhookEndpoints.id, endpoint.id));
      // The four in flight end; the next renewal saw the endpoint disabled.
      await eventually(
        async () =>
          (await states()).filter(({ delivery }) => delivery.status === "delivered").length === 4,
        { message: "the four in flight to be recorded" },
      );
      await Bun.sleep(300);
    } finally {
      await w.stop();
    }
    expect(receiver.at("/queued-disabled")).toHaveLength(4);
    const unsent = (await states()).filter(({ delivery }) => delivery.status !== "delivered");
    expect(unsent).toHaveLength(4);
    expect(
      unsent.every(({ delivery, attempts }) => delivery.attempts === 0 && attempts === 0),
    ).toBe(true);
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
