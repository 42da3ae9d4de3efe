import { describe, expect, test } from "bun:test";
import { webhookAttempts, webhookDeliveries } from "@newsroom/shared/db/schema";
import { requireService } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import type { Hit } from "@newsroom/shared/testing/webhook-receiver";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { UNRECORDED_ANSWER } from "../src/delivery/store.ts";
import { reconcileOnce } from "../src/fan-out/reconciler.ts";
import { dispatcherWorld } from "./support/processes.ts";

const EVENTS = 100;
const ENDPOINTS = 10;
const databaseUrl = requireService("DATABASE_URL");

describe.skipIf(!databaseUrl)("the dispatcher process killed mid-run (SIGKILL)", () => {
  const world = dispatcherWorld();

  const pendingRows = () =>
    world.fx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "pending"));

  test("1,000 deliveries outstanding: each ends delivered; a duplicate keeps its webhook-id", async () => {
    // 10 endpoints x 100 events = 1,000 deliveries; each receiver takes 20 ms to answer, so
    // dozens of attempts are in flight at any moment.
    const secrets = new Map<string, string>();
    const pathOf = new Map<string, string>();
    for (let i = 0; i < ENDPOINTS; i++) {
      const path = `/r${i}`;
      world.receiver.on(path, async () => {
        await Bun.sleep(20);
        return new Response("ok");
      });
      const endpoint = await world.fx.endpoint(world.receiver.url(path), ["story.submitted"]);
      secrets.set(path, endpoint.secret);
      pathOf.set(endpoint.id, path);
    }
    for (let i = 0; i < EVENTS; i++) await world.fx.submitted();
    // Fan every event out now (as the consumer would), so all 1,000 are outstanding at start.
    await reconcileOnce(world.fx.db, new Date(Date.now() + 60_000), 0);
    expect(await pendingRows()).toHaveLength(EVENTS * ENDPOINTS);

    const first = await world.dispatcher();
    await eventually(() => world.receiver.hits.length >= 300, {
      message: "a third of the deliveries",
      timeoutMs: 60_000,
    });
    expect(await first.kill("SIGKILL")).not.toBe(0);
    // A claim the process sent just before it died still commits on the server.
    await Bun.sleep(1_000);

    const afterKill = await pendingRows();
    const killedAt = new Date();
    // Mid-run: work was left, and some of it was claimed by the process that died.
    expect(afterKill.length).toBeGreaterThan(0);
    const held = afterKill.filter((row) => row.lockedUntil && row.lockedUntil > killedAt);
    expect(held.length).toBeGreaterThan(0);
    // Each call in flight at the kill was logged before its request left.
    const opened = held.filter((row) => row.attempts >= 1);
    expect(opened.length).toBeGreaterThan(0);

    const second = await world.dispatcher();
    const restarted = Date.now();
    // The dead process renewed its claims while it lived; they lapse within the lease (8 s),
    // and the new process takes them then: the whole backlog drains within 15 s.
    await eventually(async () => (await pendingRows()).length === 0, {
      message: "every delivery",
      timeoutMs: 60_000,
    });
    const drainedMs = Date.now() - restarted;
    expect(drainedMs).toBeLessThan(15_000);
    // A graceful stop of the second process: exit 0.
    expect(await second.kill("SIGTERM")).toBe(0);

    const rows = await world.fx.db.select().from(webhookDeliveries);
    expect(rows).toHaveLength(EVENTS * ENDPOINTS);
    expect(rows.filter((row) => row.status !== "delivered")).toEqual([]);
    expect(rows.every((row) => row.lockedUntil === null && row.lastError === null)).toBe(true);

    // What the receiver saw: every delivery at least once, nothing it was not owed.
    const hitsOf = new Map<string, Hit[]>();
    for (const hit of world.receiver.hits) {
      const key = `${hit.path} ${hit.headers.get("webhook-id")}`;
      hitsOf.set(key, [...(hitsOf.get(key) ?? []), hit]);
    }
    const owed = new Set(rows.map((row) => `${pathOf.get(row.endpointId)} ${row.eventId}`));
    expect([...hitsOf.keys()].filter((key) => !owed.has(key))).toEqual([]);
    expect([...owed].filter((key) => !hitsOf.has(key))).toEqual([]);

    // A claim of the dead process was never sent again before its lease ran out.
    const leaseOf = new Map(
      held.map((row) => [`${pathOf.get(row.endpointId)} ${row.eventId}`, row.lockedUntil!]),
    );
    const early = world.receiver.hits.filter((hit) => {
      const lease = leaseOf.get(`${hit.path} ${hit.headers.get("webhook-id")}`);
      return lease && hit.at > killedAt.getTime() && hit.at < lease.getTime() - 100;
    });
    expect(early).toEqual([]);

    // The attempt log holds every call each receiver saw; the dead process's open attempts are
    // closed as unanswered by the attempt after them.
    const logged = await world.fx.db.select().from(webhookAttempts);
    const loggedOf = new Map<string, number>();
    for (const attempt of logged) {
      loggedOf.set(attempt.deliveryId, (loggedOf.get(attempt.deliveryId) ?? 0) + 1);
    }
    const hidden = rows.filter(
      (row) =>
        (loggedOf.get(row.id) ?? 0) <
        (hitsOf.get(`${pathOf.get(row.endpointId)} ${row.eventId}`)?.length ?? 0),
    );
    expect(hidden).toEqual([]);
    expect(logged.filter((attempt) => attempt.inFlight)).toEqual([]);
    const openedIds = new Set(opened.map((row) => row.id));
    const closedUnanswered = logged.filter((attempt) => attempt.reason === UNRECORDED_ANSWER);
    expect(closedUnanswered.every((attempt) => openedIds.has(attempt.deliveryId))).toBe(true);
    expect(closedUnanswered.length).toBe(opened.length);

    // Duplicates only where an attempt was in flight when the process died, each with the same
    // webhook-id (the key above) and a valid signature, the body carrying that id.
    const heldKeys = new Set(held.map((row) => `${pathOf.get(row.endpointId)} ${row.eventId}`));
    const duplicated = [...hitsOf].filter(([, hits]) => hits.length > 1).map(([key]) => key);
    expect(duplicated.filter((key) => !heldKeys.has(key))).toEqual([]);
    for (const [key, hits] of hitsOf) {
      expect(hits.length).toBeLessThanOrEqual(2);
      for (const hit of hits) {
        const headers: Record<string, string> = {};
        hit.headers.forEach((value, name) => {
          headers[name] = value;
        });
        const event = new Webhook(secrets.get(hit.path)!).verify(hit.body, headers) as {
          id: string;
        };
        expect(`${hit.path} ${event.id}`).toBe(key);
      }
    }
    console.log(
      `crash test: ${world.receiver.hits.length} requests for ${rows.length} deliveries; ` +
        `${held.length} in flight at the kill, ${duplicated.length} of them seen twice; ` +
        `drained ${drainedMs} ms after the restart`,
    );
  }, 180_000);
});
