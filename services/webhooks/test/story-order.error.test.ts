import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Hit, type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { createWebhooksService } from "../src/app.ts";
import { type Fixture, internalCall, webhooksFixture } from "./support/harness.ts";

/**
 * `ordering: story`: a story's events reach the endpoint in the order they happened. A later
 * event waits while an earlier one of its story is retried, then goes once that one succeeded or
 * finally failed; other stories' events flow meanwhile. `none` (the default) does not wait.
 */
let fx: Fixture;
let receiver: Receiver;
let service: ServiceHandle;

/** Three attempts, a second apart: long enough to see who waits for the retry. */
const SCHEDULE = "1,1";
const EVENTS = ["story.submitted", "story.approved"] as const;

beforeAll(async () => {
  fx = await webhooksFixture();
  receiver = startReceiver();
  service = await createWebhooksService(fx.runtime({ WEBHOOK_RETRY_SCHEDULE: SCHEDULE }), {
    pollIntervalMs: 20,
  });
});

afterAll(async () => {
  await service.stop();
  receiver.stop();
  await fx.close();
});

const idOf = (hit: Hit) => hit.headers.get("webhook-id");
/** The event ids a path received, in the order they arrived. */
const arrivedAt = (path: string) => receiver.at(path).map(idOf);

/** Answers 500 to the first request of `eventId` (or to every one, `always`), else 200. */
function failFirstAttemptOf(path: string, eventId: () => string | null, always = false) {
  let failed = false;
  receiver.on(path, (hit) => {
    if (idOf(hit) === eventId() && (always || !failed)) {
      failed = true;
      return new Response("not now", { status: 500 });
    }
    return new Response("ok");
  });
}

describe("ordering per story", () => {
  test("the second event waits for the first's retry, then both arrive in order; another story flows meanwhile", async () => {
    const org = await fx.organization();
    const ordered = await fx.endpoint(receiver.url("/ordered"), [...EVENTS], org, {
      ordering: "story",
    });
    const unordered = await fx.endpoint(receiver.url("/unordered"), [...EVENTS], org);
    expect((await fx.endpointRow(ordered.id)).ordering).toBe("story");
    expect((await fx.endpointRow(unordered.id)).ordering).toBe("none");

    let first: string | null = null;
    failFirstAttemptOf("/ordered", () => first);
    failFirstAttemptOf("/unordered", () => first);
    const story = await fx.story(org);
    const other = await fx.story(org);
    first = await fx.transition(story.id, { action: "submit" });
    await eventually(() => arrivedAt("/ordered").includes(first), {
      message: "the first event's failed attempt",
    });

    const second = await fx.transition(story.id, { action: "approve" });
    const otherSubmitted = await fx.transition(other.id, { action: "submit" });
    const otherApproved = await fx.transition(other.id, { action: "approve" });

    // The other story is not held up: both its events arrive before the first one's retry.
    await eventually(() => arrivedAt("/ordered").includes(otherApproved), {
      message: "the other story's events",
    });
    expect(arrivedAt("/ordered")).toEqual([first, otherSubmitted, otherApproved]);
    // The second event of the story waits, pending, with no attempt made.
    const waiting = await fx.delivery(ordered.id, second);
    expect(waiting).toMatchObject({ status: "pending", attempts: 0 });
    // Not due before the first one's retry: claims meanwhile do not read it only to pass it over.
    const retried = (await fx.delivery(ordered.id, first))!;
    expect(retried.status).toBe("pending");
    expect(waiting!.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(
      retried.nextAttemptAt!.getTime(),
    );
    // Unordered, the same second event did not wait for the retry.
    await eventually(() => arrivedAt("/unordered").includes(second), {
      message: "the unordered endpoint's second event",
    });
    expect(arrivedAt("/unordered").filter((id) => id === first)).toHaveLength(1);

    await eventually(() => arrivedAt("/ordered").includes(second), {
      message: "the second event after the first's retry",
      timeoutMs: 10_000,
    });
    const ofStory = arrivedAt("/ordered").filter((id) => id === first || id === second);
    expect(ofStory).toEqual([first, first, second]);
    await eventually(async () => (await fx.delivery(ordered.id, second))?.status === "delivered", {
      message: "the second delivery recorded",
    });
    expect(await fx.delivery(ordered.id, first)).toMatchObject({
      status: "delivered",
      attempts: 2,
    });
    expect(await fx.delivery(ordered.id, second)).toMatchObject({
      status: "delivered",
      attempts: 1,
    });
  }, 30_000);

  test("changing the ordering applies to the deliveries already waiting", async () => {
    const org = await fx.organization();
    const endpoint = await fx.endpoint(receiver.url("/down"), [...EVENTS], org);
    receiver.on("/down", () => new Response("down", { status: 503 }));
    const story = await fx.story(org);
    const first = await fx.transition(story.id, { action: "submit" });
    const second = await fx.transition(story.id, { action: "approve" });
    const orderOf = async () =>
      Promise.all([first, second].map(async (id) => (await fx.delivery(endpoint.id, id))!));
    await eventually(async () => (await orderOf()).every((row) => row.attempts >= 1), {
      message: "both attempted once, unordered",
    });
    expect((await orderOf()).map((row) => row.storyOrder)).toEqual([null, null]);

    const path = `/orgs/${org}/webhook-endpoints/${endpoint.id}`;
    const ordered = await internalCall(service, fx, "PATCH", path, { ordering: "story" });
    expect(ordered.body.ordering).toBe("story");
    const placed = await orderOf();
    expect(placed.every((row) => row.status === "pending")).toBe(true);
    expect(placed[0]!.storyOrder).toBeLessThan(placed[1]!.storyOrder!);

    await internalCall(service, fx, "PATCH", path, { ordering: "none" });
    expect((await orderOf()).map((row) => row.storyOrder)).toEqual([null, null]);
  }, 30_000);

  test("once the earlier event has failed every attempt, the next one goes", async () => {
    const org = await fx.organization();
    const ordered = await fx.endpoint(receiver.url("/stubborn"), [...EVENTS], org, {
      ordering: "story",
    });
    let first: string | null = null;
    failFirstAttemptOf("/stubborn", () => first, true);
    const story = await fx.story(org);
    first = await fx.transition(story.id, { action: "submit" });
    const second = await fx.transition(story.id, { action: "approve" });

    await eventually(() => arrivedAt("/stubborn").includes(second), {
      message: "the second event after the first gave up",
      timeoutMs: 15_000,
    });
    expect(arrivedAt("/stubborn")).toEqual([first, first, first, second]);
    await eventually(async () => (await fx.delivery(ordered.id, second))?.status === "delivered", {
      message: "the second delivery recorded",
    });
    expect(await fx.delivery(ordered.id, first)).toMatchObject({ status: "failed", attempts: 3 });
  }, 30_000);
});
