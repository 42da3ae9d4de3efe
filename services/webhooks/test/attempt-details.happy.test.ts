import { describe, expect, test } from "bun:test";
import { webhookAttempts } from "@newsroom/shared/db/schema";
import { newId } from "@newsroom/shared/ids";
import { eventually } from "@newsroom/shared/testing/eventually";
import { closedPort } from "@newsroom/shared/testing/ports";
import { and, asc, eq } from "drizzle-orm";
import { ANSWER_PREFIX_BYTES, answerPrefixText } from "../src/delivery/answer-prefix.ts";
import { deleteOldAttempts } from "../src/delivery/store.ts";
import { attemptsRecorded, deliveringWorld } from "./support/harness.ts";

const world = deliveringWorld();

describe("attempt details", () => {
  test("each attempt's time, status, duration, the first 1 KiB of the answer and the reason; the delivery's last duration", async () => {
    let calls = 0;
    // 3 KiB with bytes that are not UTF-8 and a NUL, then a slow 200.
    const long = new Uint8Array(3 * 1024).fill(0x61);
    long.set([0xff, 0xfe, 0x00], 10);
    world.receiver.on("/details", async () => {
      calls += 1;
      if (calls === 1) return new Response(long, { status: 500 });
      await Bun.sleep(120);
      return new Response("thanks", { status: 200 });
    });
    const org = await world.fx.organization();
    const endpoint = await world.fx.endpoint(
      world.receiver.url("/details"),
      ["story.submitted"],
      org,
    );
    const { eventId } = await world.fx.submitted(org);
    const delivery = await eventually(
      async () => {
        const row = await world.fx.delivery(endpoint.id, eventId);
        return row?.status === "delivered" ? row : null;
      },
      { message: "the delivery" },
    );
    expect(delivery.lastDurationMs).toBeGreaterThanOrEqual(100);
    const attempts = await world.fx.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, delivery.id))
      .orderBy(asc(webhookAttempts.attempt));
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.reason])).toEqual([
      [1, 500, "receiver answered 500"],
      [2, 200, null],
    ]);
    const [failed, delivered] = attempts as [(typeof attempts)[0], (typeof attempts)[0]];
    expect(failed.responseBody).toStartWith("aaaaaaaaaa\uFFFD\uFFFD\uFFFDaaa");
    expect(failed.responseBody!.length).toBe(ANSWER_PREFIX_BYTES);
    expect(failed.organizationId).toBe(org);
    expect(delivered.responseBody).toBe("thanks");
    expect(delivered.durationMs).toBeGreaterThanOrEqual(100);
    expect(delivered.at.getTime()).toBeGreaterThanOrEqual(failed.at.getTime());
  });

  test("no answer: status and body null, the reason and a duration", async () => {
    const org = await world.fx.organization();
    const endpoint = await world.fx.endpoint(
      `http://127.0.0.1:${await closedPort()}/hooks`,
      ["story.submitted"],
      org,
    );
    const { eventId } = await world.fx.submitted(org);
    const delivery = await eventually(
      async () => {
        const row = await world.fx.delivery(endpoint.id, eventId);
        return attemptsRecorded(row) ? row : null;
      },
      { message: "the refused attempt" },
    );
    const [attempt] = await world.fx.db
      .select()
      .from(webhookAttempts)
      .where(and(eq(webhookAttempts.deliveryId, delivery.id), eq(webhookAttempts.attempt, 1)));
    expect(attempt?.statusCode).toBeNull();
    expect(attempt?.responseBody).toBeNull();
    expect(attempt?.reason).toBe("connection refused");
    expect(attempt?.durationMs).toBeGreaterThanOrEqual(0);
  });

  test("details older than 30 days are deleted by the periodic job", async () => {
    const [any] = await world.fx.db.select().from(webhookAttempts).limit(1);
    const old = { ...any!, id: newId(), at: new Date(Date.now() - 31 * 86_400_000) };
    await world.fx.db.insert(webhookAttempts).values(old);
    await deleteOldAttempts(world.fx.db);
    const left = await world.fx.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.id, old.id));
    expect(left).toEqual([]);
    const [kept] = await world.fx.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.id, any!.id));
    expect(kept).toBeDefined();
  });

  test("the kept text: at most 1 KiB, invalid bytes replaced, empty is null", () => {
    expect(answerPrefixText(new Uint8Array())).toBeNull();
    expect(answerPrefixText(new TextEncoder().encode("héllo"))).toBe("héllo");
    expect(answerPrefixText(new Uint8Array([0x6f, 0x6b, 0xc3]))).toBe("ok\uFFFD");
  });
});
