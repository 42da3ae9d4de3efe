import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { JetStreamBus } from "@newsroom/shared/bus/jetstream";
import {
  outboxEvents,
  webhookDeliveries,
  webhookFannedOutEvents,
} from "@newsroom/shared/db/schema";
import type { ServiceHandle } from "@newsroom/shared/service";
import { requireService } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Hit, type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { createWebhooksService } from "@newsroom/webhooks/app";
import { type OutboxRelay, startOutboxRelay } from "@newsroom/workspace/outbox/relay";
import { createStory, transitionStory } from "@newsroom/workspace/stories/service";
import { eq, isNull } from "drizzle-orm";
import {
  type Fixture,
  random,
  webhooksFixture,
} from "../../services/webhooks/test/support/harness.ts";
import {
  type NatsServer,
  natsServerBinary,
  startNatsServer,
} from "../../services/webhooks/test/support/processes.ts";

const binary = natsServerBinary();
/** The reconciler's age threshold here (a minute in production). */
const RECONCILE_AFTER_MS = 3_000;
// PostgreSQL: the outbox relay holds its transaction while it publishes, which on PGlite (one
// connection) stalls every other query for as long as the bus is down.
const databaseUrl = requireService("DATABASE_URL");

/**
 * A flow across two services over the bus: the workspace's outbox relay publishes story events
 * and the webhooks service consumes and delivers them. The NATS server of this file (its own process, port and store; never the machine's shared
 * server) is killed and restarted while events are being published: first with its store
 * intact, then having lost it, as a crash can lose messages JetStream had acknowledged.
 */
describe.skipIf(!binary || !databaseUrl)("the NATS server restarted under load", () => {
  let fx: Fixture;
  let receiver: Receiver;
  let nats: NatsServer;
  const id = random();
  const busOptions = { stream: `T_${id.toUpperCase()}`, subjectPrefix: `t${id}.` };
  const buses: JetStreamBus[] = [];
  let relay: OutboxRelay | null = null;
  let service: ServiceHandle | null = null;
  const endpoints = new Map<string, string>();

  beforeAll(async () => {
    fx = await webhooksFixture();
    receiver = startReceiver();
    nats = await startNatsServer(binary!);
  }, 30_000);

  afterAll(async () => {
    await service?.stop();
    await relay?.stop();
    for (const bus of buses) await bus.close();
    await nats?.close();
    receiver.stop();
    await fx.close();
  }, 30_000);

  const connectBus = async () => {
    const bus = await JetStreamBus.connect(nats.url, busOptions);
    buses.push(bus);
    return bus;
  };

  /** The dispatcher, in this process, on a bus connection of its own. */
  const startService = async () => {
    const bus = await connectBus();
    return createWebhooksService(
      { ...fx.runtime({ WEBHOOK_RETRY_SCHEDULE: "0.2,0.2,0.2,0.2,0.2,0.2,0.2" }), bus },
      { pollIntervalMs: 50, reconcileIntervalMs: 250, reconcileAfterMs: RECONCILE_AFTER_MS },
    );
  };

  /** `count` stories sent for review, one after another: one outbox event each. */
  const produce = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const story = await createStory(fx.db, fx.orgId, {
        type: "insight",
        slug: `s-${random()}`,
        title: "A story",
      });
      await transitionStory(fx.db, fx.orgId, story.id, { action: "submit" });
      relay?.kick();
      await Bun.sleep(20);
    }
  };

  /** The outbox's events, each with when the webhooks service's own record says it fanned out. */
  const allEvents = () =>
    fx.db
      .select({
        id: outboxEvents.id,
        createdAt: outboxEvents.createdAt,
        fannedOutAt: webhookFannedOutEvents.fannedOutAt,
      })
      .from(outboxEvents)
      .leftJoin(webhookFannedOutEvents, eq(webhookFannedOutEvents.eventId, outboxEvents.id));

  /** Waits until there are `count` events and every one of their deliveries is delivered. */
  const everyDelivery = (count: number) =>
    eventually(
      async () => {
        const events = await allEvents();
        const rows = await fx.db.select().from(webhookDeliveries);
        return (
          events.length === count &&
          rows.length === count * 2 &&
          rows.every((row) => row.status === "delivered")
        );
      },
      { message: `${count} events delivered to both endpoints`, timeoutMs: 45_000 },
    );

  const lag = (row: { createdAt: Date; fannedOutAt: Date | null }) =>
    row.fannedOutAt!.getTime() - row.createdAt.getTime();

  /** Five new events are fanned out by the bus consumer, long before the reconciler looks. */
  const busCarriesEvents = async () => {
    const before = new Set((await allEvents()).map((row) => row.id));
    await produce(5);
    const fresh = await eventually(
      async () => {
        const rows = (await allEvents()).filter((row) => !before.has(row.id));
        return rows.length === 5 && rows.every((row) => row.fannedOutAt) ? rows : null;
      },
      { message: "fresh events to be fanned out", timeoutMs: 10_000 },
    );
    expect(fresh.filter((row) => lag(row) >= RECONCILE_AFTER_MS)).toEqual([]);
  };

  test("every event reaches every endpoint; duplicates carry the same webhook-id", async () => {
    for (const path of ["/a", "/b"]) {
      const endpoint = await fx.endpoint(receiver.url(path), ["story.submitted"]);
      endpoints.set(endpoint.id, path);
    }
    service = await startService();
    // The relay, as the workspace runs it, on its own connection.
    relay = startOutboxRelay(fx.db, await connectBus(), 100);

    // 1. Killed (SIGKILL) and restarted with its store while stories keep changing.
    await produce(15);
    await nats.kill();
    await produce(15);
    await nats.start();
    await produce(15);
    await eventually(
      async () => {
        const rows = await allEvents();
        return rows.length === 45 && rows.every((row) => row.fannedOutAt !== null);
      },
      { message: "the events of the first restart to be fanned out", timeoutMs: 30_000 },
    );
    await busCarriesEvents();

    // 2. Events the bus acknowledged but the dispatcher had not consumed yet (it is stopped)
    //    are lost with the server's store.
    await service.stop();
    service = null;
    await produce(15);
    await eventually(
      async () =>
        (await fx.db.select().from(outboxEvents).where(isNull(outboxEvents.publishedAt))).length ===
        0,
      { message: "the relay to publish them", timeoutMs: 30_000 },
    );
    const lost = (await allEvents()).filter((row) => !row.fannedOutAt).map((row) => row.id);
    expect(lost).toHaveLength(15);
    await nats.kill();
    await nats.start({ wipe: true });
    const restartedAt = new Date();
    service = await startService();
    await produce(15);

    // The reconciler fans out what the bus lost; everything is delivered.
    await everyDelivery(80);
    const lostRows = (await allEvents()).filter((row) => lost.includes(row.id));
    // Not through the bus, which lost them: the restarted service's first reconciler pass took
    // every event committed before it started, however young.
    expect(lostRows.filter((row) => !row.fannedOutAt || row.fannedOutAt < restartedAt)).toEqual([]);

    // 3. With the server back, the bus carries events again.
    await busCarriesEvents();
    await everyDelivery(85);

    const events = await allEvents();
    expect(events.every((row) => row.fannedOutAt !== null)).toBe(true);
    const rows = await fx.db.select().from(webhookDeliveries);
    const owed = new Set(rows.map((row) => `${endpoints.get(row.endpointId)} ${row.eventId}`));
    expect(owed.size).toBe(170);
    const hitsOf = new Map<string, Hit[]>();
    for (const hit of receiver.hits) {
      const key = `${hit.path} ${hit.headers.get("webhook-id")}`;
      hitsOf.set(key, [...(hitsOf.get(key) ?? []), hit]);
    }
    // None lost, none invented; any repeat carries the same webhook-id as its body's id.
    expect([...owed].filter((key) => !hitsOf.has(key))).toEqual([]);
    expect([...hitsOf.keys()].filter((key) => !owed.has(key))).toEqual([]);
    for (const [key, hits] of hitsOf) {
      for (const hit of hits) expect(`${hit.path} ${JSON.parse(hit.body).id}`).toBe(key);
    }
    for (const eventId of lost) {
      expect([hitsOf.has(`/a ${eventId}`), hitsOf.has(`/b ${eventId}`)]).toEqual([true, true]);
    }
  }, 120_000);
});
