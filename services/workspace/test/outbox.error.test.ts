import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { EventBus } from "@newsroom/shared/bus/index";
import { JetStreamBus } from "@newsroom/shared/bus/jetstream";
import { outboxEvents, statusOutboxEvents, stories } from "@newsroom/shared/db/schema";
import type { BusEvent } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { outboxLag } from "@newsroom/shared/metrics";
import { requireService } from "@newsroom/shared/testing/database";
import { eq } from "drizzle-orm";
import { relayOnce, startOutboxRelay } from "../src/outbox/relay.ts";
import { transitionStory } from "../src/stories/service.ts";
import {
  busPublishingWith,
  type Harness,
  orgWithDraft,
  workspaceHarness,
} from "./support/harness.ts";

describe("outbox", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness();
  });
  afterAll(() => h.close());

  test("a transition writes its event in the same transaction", async () => {
    const { orgId, storyId } = await orgWithDraft(h, "outbox-ok");
    await transitionStory(h.database.db, orgId, storyId, { action: "submit" });
    const rows = await h.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.storyId, storyId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: "story.submitted", organizationId: orgId });
    expect(rows[0]?.publishedAt).toBeNull();
  });

  test("a failure between the story write and the outbox row leaves neither", async () => {
    const { orgId, storyId } = await orgWithDraft(h, "outbox-fail");
    const attempt = transitionStory(
      h.database.db,
      orgId,
      storyId,
      { action: "submit" },
      {
        withStoryWrite: async () => {
          throw new Error("crash between the story and its event");
        },
      },
    );
    await expect(attempt).rejects.toThrow("crash between");
    const [story] = await h.database.db.select().from(stories).where(eq(stories.id, storyId));
    expect(story?.status).toBe("draft");
    const events = await h.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.storyId, storyId));
    expect(events).toHaveLength(0);
  });

  test("outbox_lag_seconds: the oldest waiting event's age, growing while the bus refuses", async () => {
    const lag = async () => (await outboxLag.get()).values[0]?.value;
    /** One pass of a relay (it runs one at start), then stopped. */
    const onePass = (bus: EventBus) => startOutboxRelay(h.database.db, bus, 60_000).stop();
    const { orgId, storyId } = await orgWithDraft(h, "outbox-lag");
    await transitionStory(h.database.db, orgId, storyId, { action: "submit" });
    await h.database.db
      .update(outboxEvents)
      .set({ createdAt: new Date(Date.now() - 600_000) })
      .where(eq(outboxEvents.storyId, storyId));
    const refusing = busPublishingWith(h.bus, async () => {
      throw new Error("the bus is down");
    });
    await onePass(refusing);
    expect(await lag()).toBeGreaterThanOrEqual(600);
    // The pass that publishes it reports how long it waited; the next finds nothing waiting.
    await onePass(h.bus);
    expect(await lag()).toBeGreaterThanOrEqual(600);
    await onePass(h.bus);
    expect(await lag()).toBe(0);
  });

  test("the status page's events are relayed while the story outbox's pass fails", async () => {
    const { orgId, storyId } = await orgWithDraft(h, "outbox-status-apart");
    await transitionStory(h.database.db, orgId, storyId, { action: "submit" });
    const statusEventId = newId();
    await h.database.db.insert(statusOutboxEvents).values({
      id: statusEventId,
      type: "status.incident_updated",
      payload: { id: statusEventId, type: "status.incident_updated", data: {} },
    });
    const refusingStories = busPublishingWith(h.bus, async (event) => {
      if (event.type.startsWith("story.")) throw new Error("the story subjects are down");
      return h.bus.publish(event);
    });
    // One pass over both outboxes (the relay's first), then stopped.
    await startOutboxRelay(h.database.db, refusingStories, 60_000).stop();
    const [statusRow] = await h.database.db
      .select()
      .from(statusOutboxEvents)
      .where(eq(statusOutboxEvents.id, statusEventId));
    expect(statusRow?.publishedAt).not.toBeNull();
    const [storyRow] = await h.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.storyId, storyId));
    expect(storyRow?.publishedAt).toBeNull();
  });

  test("the relay publishes unsent rows once and marks them sent", async () => {
    const seen: BusEvent[] = [];
    await h.bus.subscribe(
      async (event) => {
        seen.push(event);
      },
      { durable: "outbox-test" },
    );
    const { orgId, storyId } = await orgWithDraft(h, "outbox-relay");
    await transitionStory(h.database.db, orgId, storyId, { action: "submit" });
    const first = await relayOnce(h.database.db, h.bus);
    expect(first.published).toBeGreaterThanOrEqual(1);
    expect((await relayOnce(h.database.db, h.bus)).published).toBe(0);
    await Bun.sleep(20);
    const mine = seen.filter((e) => e.type === "story.submitted" && e.data.story_id === storyId);
    expect(mine).toHaveLength(1);
  });
});

describe("outbox relay and a slow bus (PGlite: one connection for everything)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness({ backend: "pglite" });
  });
  afterAll(() => h.close());

  test("no transaction is open while the bus is called: the database answers meanwhile", async () => {
    const { orgId, storyId } = await orgWithDraft(h, "outbox-slow-bus");
    await transitionStory(h.database.db, orgId, storyId, { action: "submit" });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowBus = busPublishingWith(h.bus, async (event) => {
      await gate;
      return h.bus.publish(event);
    });
    const relaying = relayOnce(h.database.db, slowBus);
    await Bun.sleep(50);
    const answer = await Promise.race([
      h.call("POST", "/orgs", { slug: "outbox-meanwhile", name: "Meanwhile" }),
      Bun.sleep(1_000).then(() => "too slow" as const),
    ]);
    release();
    expect(answer === "too slow" ? answer : answer.status).toBe(201);
    expect((await relaying).published).toBeGreaterThanOrEqual(1);
    const [row] = await h.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.storyId, storyId));
    expect(row?.publishedAt).not.toBeNull();
  });

  test("two relays at once: each event reaches subscribers once (the bus drops the copy)", async () => {
    const seen: BusEvent[] = [];
    await h.bus.subscribe(
      async (event) => {
        seen.push(event);
      },
      { durable: "outbox-two-relays" },
    );
    const { orgId, storyId } = await orgWithDraft(h, "outbox-two-relays");
    await transitionStory(h.database.db, orgId, storyId, { action: "submit" });
    await Promise.all([relayOnce(h.database.db, h.bus), relayOnce(h.database.db, h.bus)]);
    await Bun.sleep(20);
    const mine = seen.filter((e) => e.type === "story.submitted" && e.data.story_id === storyId);
    expect(mine).toHaveLength(1);
  });
});

const natsUrl = requireService("NATS_URL");

describe.skipIf(!natsUrl)("outbox relay on the real JetStream", () => {
  const suffix = Math.random().toString(36).slice(2, 8);
  const stream = `T_OUTBOX_${suffix.toUpperCase()}`;
  let bus: JetStreamBus;
  let h: Harness;

  beforeAll(async () => {
    bus = await JetStreamBus.connect(natsUrl!, { stream, subjectPrefix: `t${suffix}.` });
    h = await workspaceHarness({ bus });
  });
  afterAll(async () => {
    await h.close();
    const nc = await connect({ servers: natsUrl! });
    await (await jetstreamManager(nc)).streams.delete(stream);
    await nc.close();
  });

  test("a relay that crashes after publishing republishes the same id; JetStream drops it", async () => {
    const { orgId, storyId } = await orgWithDraft(h, "outbox-crash");
    await transitionStory(h.database.db, orgId, storyId, { action: "submit" });
    const crashed = relayOnce(h.database.db, bus, {
      afterPublish: () => {
        throw new Error("relay died before marking sent");
      },
    });
    await expect(crashed).rejects.toThrow("relay died");
    const [row] = await h.database.db
      .select()
      .from(outboxEvents)
      .where(eq(outboxEvents.storyId, storyId));
    expect(row?.publishedAt).toBeNull();

    const retried = await relayOnce(h.database.db, bus);
    expect(retried).toMatchObject({ published: 1, duplicates: 1 });

    const nc = await connect({ servers: natsUrl! });
    const subject = `t${suffix}.story.submitted`;
    const info = await (await jetstreamManager(nc)).streams.info(stream, {
      subjects_filter: subject,
    });
    await nc.close();
    // One story event on the stream (the workspace also announced data changes on `data.>`).
    expect(info.state.subjects?.[subject]).toBe(1);
  });
});
