import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { EventBus } from "../src/bus/index.ts";
import { JetStreamBus } from "../src/bus/jetstream.ts";
import { MemoryBus } from "../src/bus/memory.ts";
import type { BusEvent, StoryEvent } from "../src/events.ts";
import { requireService } from "../src/testing/database.ts";
import { eventually } from "../src/testing/eventually.ts";
import { freePort } from "../src/testing/ports.ts";
import { NATS_SERVER, natsServer, requireBinary, waitForPort } from "../src/testing/servers.ts";

const natsUrl = requireService("NATS_URL");

function storyEvent(type: StoryEvent["type"] = "story.published"): StoryEvent {
  return {
    id: crypto.randomUUID(),
    type,
    created_at: new Date().toISOString(),
    data: { organization_id: crypto.randomUUID(), story_id: crypto.randomUUID() },
  };
}

type Backend = { name: string; open(): Promise<EventBus>; cleanup(): Promise<void> };

const suffix = Math.random().toString(36).slice(2, 8);
const backends: Backend[] = [
  { name: "memory", open: async () => new MemoryBus(), cleanup: async () => {} },
];
if (natsUrl) {
  const stream = `T_BUS_${suffix.toUpperCase()}`;
  backends.push({
    name: "jetstream",
    open: () => JetStreamBus.connect(natsUrl, { stream, subjectPrefix: `t${suffix}.` }),
    cleanup: async () => {
      const nc = await connect({ servers: natsUrl });
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
      await nc.close();
    },
  });
}

for (const backend of backends) {
  describe(`event bus: ${backend.name}`, () => {
    let bus: EventBus;
    beforeAll(async () => {
      bus = await backend.open();
    });
    afterAll(async () => {
      await bus.close();
      await backend.cleanup();
    });

    test("a durable group gets each event once, shared between its subscribers", async () => {
      const a: BusEvent[] = [];
      const b: BusEvent[] = [];
      await bus.subscribe(async (e) => void a.push(e), { durable: `group-${suffix}` });
      await bus.subscribe(async (e) => void b.push(e), { durable: `group-${suffix}` });
      const events = Array.from({ length: 10 }, () => storyEvent());
      for (const event of events) await bus.publish(event);
      await eventually(() => a.length + b.length >= 10, { message: "the ten events in the group" });
      await Bun.sleep(200);
      const ids = [...a, ...b].map((e) => e.id).sort();
      expect(ids).toEqual(events.map((e) => e.id).sort());
    });

    test("republishing an event id is a duplicate and is not delivered again", async () => {
      const seen: BusEvent[] = [];
      await bus.subscribe(async (e) => void seen.push(e), { durable: `dedupe-${suffix}` });
      const event = storyEvent("story.submitted");
      expect(await bus.publish(event)).toEqual({ duplicate: false });
      expect(await bus.publish(event)).toEqual({ duplicate: true });
      await eventually(() => seen.some((e) => e.id === event.id), { message: "the event" });
      await Bun.sleep(300);
      expect(seen.filter((e) => e.id === event.id)).toHaveLength(1);
    });

    test("a handler that throws gets the event again", async () => {
      let calls = 0;
      const event = storyEvent("story.approved");
      await bus.subscribe(
        async (e) => {
          if (e.id !== event.id) return;
          calls += 1;
          if (calls === 1) throw new Error("transient");
        },
        { durable: `retry-${suffix}` },
      );
      await bus.publish(event);
      await eventually(() => calls >= 2, { message: "the second delivery", timeoutMs: 10_000 });
      expect(calls).toBe(2);
    });

    test("a subscriber asking for several events at once gets them in order, each once", async () => {
      const started: string[] = [];
      let running = 0;
      let most = 0;
      const handled: string[] = [];
      await bus.subscribe(
        async (e) => {
          started.push(e.id);
          running += 1;
          most = Math.max(most, running);
          await Bun.sleep(50);
          running -= 1;
          handled.push(e.id);
        },
        { durable: `several-${suffix}`, types: ["story.rejected"], concurrency: 5 },
      );
      const events = Array.from({ length: 20 }, () => storyEvent("story.rejected"));
      for (const event of events) await bus.publish(event);
      await eventually(() => handled.length >= 20, { message: "the twenty events" });
      // Acked one by one as each handler ends: none comes back.
      await Bun.sleep(300);
      expect(started).toEqual(events.map((e) => e.id));
      expect(handled.sort()).toEqual(events.map((e) => e.id).sort());
      expect(most).toBeGreaterThan(1);
      // The in-process bus hands over every event at once; JetStream at most the number asked.
      if (backend.name === "jetstream") expect(most).toBeLessThanOrEqual(5);
    });

    test("a subscriber gets one event at a time unless it asks for more", async () => {
      let running = 0;
      let most = 0;
      let handled = 0;
      await bus.subscribe(
        async () => {
          running += 1;
          most = Math.max(most, running);
          await Bun.sleep(20);
          running -= 1;
          handled += 1;
        },
        { durable: `one-${suffix}`, types: ["story.unpublished"] },
      );
      for (let i = 0; i < 5; i++) await bus.publish(storyEvent("story.unpublished"));
      await eventually(() => handled >= 5, { message: "the five events" });
      if (backend.name === "jetstream") expect(most).toBe(1);
    });

    test("broadcast subscribers each see every event; type filters hold", async () => {
      const one: BusEvent[] = [];
      const two: BusEvent[] = [];
      const options = { durable: `cache-${suffix}`, broadcast: true, types: ["site.changed"] };
      await bus.subscribe(async (e) => void one.push(e), options);
      await bus.subscribe(async (e) => void two.push(e), options);
      await Bun.sleep(100);
      await bus.publish(storyEvent());
      const site: BusEvent = {
        id: crypto.randomUUID(),
        type: "site.changed",
        created_at: new Date().toISOString(),
        data: { organization_id: crypto.randomUUID(), site: "x" },
      };
      await bus.publish(site);
      await eventually(() => one.length >= 1 && two.length >= 1, {
        message: "the event at both subscribers",
      });
      await Bun.sleep(200);
      expect(one.map((e) => e.id)).toEqual([site.id]);
      expect(two.map((e) => e.id)).toEqual([site.id]);
    });
  });
}

const natsBinary = requireBinary(NATS_SERVER, "nats-server");

describe.skipIf(!natsBinary)(
  "JetStream bus across a server that restarts without its store",
  () => {
    test("publishing and subscribers carry on once the server is back, saying they were made again", async () => {
      const port = await freePort();
      let server = natsServer(port);
      server.start();
      await waitForPort(port);
      const bus = await JetStreamBus.connect(`nats://127.0.0.1:${port}`);
      const seen: string[] = [];
      const resubscribed: string[] = [];
      await bus.subscribe(async (event) => void seen.push(event.id), {
        durable: "restart-test",
        onResubscribe: () => resubscribed.push("durable"),
      });
      const broadcastSeen: string[] = [];
      await bus.subscribe(async (event) => void broadcastSeen.push(event.id), {
        durable: "restart-cache",
        broadcast: true,
        onResubscribe: () => resubscribed.push("broadcast"),
      });
      try {
        const before = storyEvent();
        await bus.publish(before);
        await eventually(() => seen.includes(before.id), {
          message: "the event before the restart",
        });

        // The server dies and comes back empty: no stream, no consumer.
        await server.stop();
        server = natsServer(port);
        server.start();
        await waitForPort(port);

        const after = storyEvent();
        await eventually(
          async () => {
            await bus.publish(after);
            return true;
          },
          { message: "a publish to the restarted server", timeoutMs: 20_000 },
        );
        await eventually(() => seen.includes(after.id), {
          message: "the event after the restart",
          timeoutMs: 20_000,
        });
        expect(seen).toContain(after.id);
        // Events between the server going and the subscriptions coming back were not seen:
        // both said so (a cache forgets what it kept), and the broadcast one hears new events.
        expect(resubscribed.sort()).toEqual(["broadcast", "durable"]);
        const later = storyEvent();
        await bus.publish(later);
        await eventually(() => broadcastSeen.includes(later.id), {
          message: "an event after the restart at the broadcast subscriber",
          timeoutMs: 20_000,
        });
      } finally {
        await bus.close();
        await server.stop();
      }
    }, 60_000);
  },
);
