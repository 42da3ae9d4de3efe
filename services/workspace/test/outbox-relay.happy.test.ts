import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { outboxEvents, statusOutboxEvents } from "@newsroom/shared/db/schema";
import type { BusEvent } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { eventually } from "@newsroom/shared/testing/eventually";
import { eq } from "drizzle-orm";
import { startOutboxRelay } from "../src/outbox/relay.ts";
import { transitionStory } from "../src/stories/service.ts";
import {
  busPublishingWith,
  type Harness,
  orgWithDraft,
  workspaceHarness,
} from "./support/harness.ts";

describe("the outbox relay's kicks", () => {
  let h: Harness;
  const published: BusEvent[] = [];
  beforeAll(async () => {
    h = await workspaceHarness();
  });
  afterAll(() => h.close());

  const recording = () =>
    busPublishingWith(h.bus, async (event) => {
      published.push(event);
      return h.bus.publish(event);
    });

  test("a transition's kick relays its story event; the status page's outbox waits for its own kick", async () => {
    // The timer's pass (both outboxes) is a minute away: only kicks run passes here.
    const relay = startOutboxRelay(h.database.db, recording(), 60_000);
    try {
      const submitted = async (slug: string) => {
        const { orgId, storyId } = await orgWithDraft(h, slug);
        await transitionStory(
          h.database.db,
          orgId,
          storyId,
          { action: "submit" },
          { onEvent: relay.kick },
        );
        await eventually(
          async () =>
            (
              await h.database.db
                .select()
                .from(outboxEvents)
                .where(eq(outboxEvents.storyId, storyId))
            )[0]?.publishedAt,
          { message: "the story event relayed after its transition's kick" },
        );
      };
      // Passes run one at a time: once this event is relayed, the start's pass is over.
      await submitted("relay-kicks-first");
      const statusEventId = newId();
      await h.database.db.insert(statusOutboxEvents).values({
        id: statusEventId,
        type: "status.incident_updated",
        payload: { id: statusEventId, type: "status.incident_updated", data: {} },
      });
      await submitted("relay-kicks-second");
      const statusRow = async () =>
        (
          await h.database.db
            .select()
            .from(statusOutboxEvents)
            .where(eq(statusOutboxEvents.id, statusEventId))
        )[0];
      expect((await statusRow())?.publishedAt).toBeNull();
      expect(published.some((event) => event.id === statusEventId)).toBe(false);

      relay.kickStatus();
      await eventually(async () => (await statusRow())?.publishedAt, {
        message: "the status event relayed after its own kick",
      });
      expect(published.some((event) => event.id === statusEventId)).toBe(true);
    } finally {
      await relay.stop();
    }
  });
});
