import { describe, expect, test } from "bun:test";
import type { StoryStatus } from "@newsroom/shared/db/schema";
import { outboxEvents, webhookDeliveries } from "@newsroom/shared/db/schema";
import type { WebhookEventOut } from "@newsroom/shared/records";
import { applyStoryAction, type StoryAction } from "@newsroom/shared/testing/builders";
import { requireService } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { and, eq, gt, sql } from "drizzle-orm";
import { reconcileOnce } from "../src/fan-out/reconciler.ts";
import { ALL_EVENTS } from "./support/harness.ts";
import { type ChildProcess, dispatcherWorld } from "./support/processes.ts";

const STORIES = 5;
const TRANSITIONS_PER_STORY = 100;
const databaseUrl = requireService("DATABASE_URL");

/** Each story's actions: submit, approve, publish, then unpublish and publish in turn. */
function actionAt(step: number): StoryAction {
  if (step < 3) return (["submit", "approve", "publish"] as const)[step]!;
  return step % 2 === 1 ? "unpublish" : "publish";
}

describe.skipIf(!databaseUrl)("event order across a burst with the dispatcher killed twice", () => {
  const world = dispatcherWorld();

  /** Fans out every event written so far, as the consumer would. */
  const fanOut = () => reconcileOnce(world.fx.db, new Date(Date.now() + 60_000), 0);

  /** SIGKILL mid-run; its claims are then made to lapse (time passing, not waited for). */
  const crash = async (child: ChildProcess) => {
    expect(await child.kill("SIGKILL")).not.toBe(0);
    // A claim sent just before the process died still commits on the server.
    await Bun.sleep(300);
    await world.fx.db
      .update(webhookDeliveries)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(
        and(eq(webhookDeliveries.status, "pending"), gt(webhookDeliveries.lockedUntil, new Date())),
      );
  };

  test("per story, the received sequences rise strictly in transition order", async () => {
    const started = Date.now();
    world.receiver.on("/ordered", async () => {
      await Bun.sleep(5);
      return new Response("ok");
    });
    await world.fx.endpoint(world.receiver.url("/ordered"), ALL_EVENTS);
    const stories = await Promise.all(Array.from({ length: STORIES }, () => world.fx.story()));
    /** Per story, its events' ids in the order their transitions committed, with the status before. */
    const transitions = new Map<
      string,
      { eventId: string; previous: StoryStatus; after: string }[]
    >(stories.map((story) => [story.id, []]));

    let running = await world.dispatcher();
    /** How many transitions had committed at each kill. */
    const killedAt: number[] = [];
    let done = 0;
    /** Each story's transitions from step `from` up to `to`, the stories side by side. */
    const runStory = async (storyId: string, from: number, to: number) => {
      const before = transitions.get(storyId)!;
      let status: StoryStatus = from === 0 ? "draft" : (before.at(-1)!.after as StoryStatus);
      for (let step = from; step < to; step++) {
        const { story } = await applyStoryAction(world.fx.db, storyId, actionAt(step));
        const seen = new Set(before.map((t) => t.eventId));
        const ids = await world.fx.db
          .select({ id: outboxEvents.id })
          .from(outboxEvents)
          .where(eq(outboxEvents.storyId, storyId));
        const fresh = ids.filter((row) => !seen.has(row.id));
        expect(fresh).toHaveLength(1);
        before.push({ eventId: fresh[0]!.id, previous: status, after: story.status });
        status = story.status as StoryStatus;
        done += 1;
        if (done % 50 === 0) await fanOut();
      }
    };
    const burstPart = (from: number, to: number) =>
      Promise.all(stories.map((story) => runStory(story.id, from, to)));
    const cuts = [0, 34, 67, TRANSITIONS_PER_STORY];
    let part = burstPart(cuts[0]!, cuts[1]!);
    // Two crashes, each once the burst so far is being delivered, while the next part of the
    // burst is being written.
    for (let i = 1; i <= 2; i++) {
      await part;
      const heard = world.receiver.at("/ordered").length;
      await fanOut();
      await eventually(() => world.receiver.at("/ordered").length > heard, {
        message: "deliveries in flight",
        timeoutMs: 15_000,
      });
      part = burstPart(cuts[i]!, cuts[i + 1]!);
      killedAt.push(done);
      await crash(running);
      running = await world.dispatcher();
    }
    await part;
    await fanOut();
    const total = STORIES * TRANSITIONS_PER_STORY;
    const deliveries = await world.fx.db.select().from(webhookDeliveries);
    expect(deliveries).toHaveLength(total);
    await eventually(
      async () =>
        (await world.fx.db.select().from(webhookDeliveries)).every(
          (row) => row.status === "delivered",
        ),
      { message: "every delivery", timeoutMs: 30_000 },
    );
    expect(await running.kill("SIGTERM")).toBe(0);

    // What the receiver got, deduplicated by webhook-id (a duplicate carries the same body).
    const received = new Map<string, WebhookEventOut>();
    for (const hit of world.receiver.at("/ordered")) {
      const event = JSON.parse(hit.body) as WebhookEventOut;
      expect(event.id).toBe(hit.headers.get("webhook-id")!);
      const earlier = received.get(event.id);
      if (earlier) expect(event.data.sequence).toBe(earlier.data.sequence);
      received.set(event.id, event);
    }
    expect(received.size).toBe(total);
    for (const story of stories) {
      const inOrder = transitions.get(story.id)!;
      const sequences = inOrder.map((t) => received.get(t.eventId)!.data.sequence!);
      for (let i = 1; i < sequences.length; i++) {
        expect(sequences[i]!).toBeGreaterThan(sequences[i - 1]!);
      }
      expect(inOrder.map((t) => received.get(t.eventId)!.data.previous_status)).toEqual(
        inOrder.map((t) => t.previous),
      );
    }
    console.log(
      `ordering test: ${world.receiver.at("/ordered").length} requests for ${total} events, ` +
        `killed after ${killedAt.join(" and ")} transitions, ` +
        `${Math.round((Date.now() - started) / 100) / 10} s`,
    );
  }, 90_000);
});
