import { beforeAll, describe, expect, test } from "bun:test";
import { webhookDeliveries } from "@newsroom/shared/db/schema";
import { eventually } from "@newsroom/shared/testing/eventually";
import { eq } from "drizzle-orm";
import { deliveringWorld, internalCall } from "./support/harness.ts";

const world = deliveringWorld();
/** While true the receiver answers 500. */
let down = true;
/** While set, the receiver holds its answers until it resolves. */
let held: Promise<void> | null = null;

beforeAll(() => {
  world.receiver.on("/flaky", async () => {
    await held;
    return new Response(down ? "down" : "ok", { status: down ? 500 : 200 });
  });
});

/** The internal API, as the workspace calls it. */
function call(method: string, path: string, body?: unknown) {
  return internalCall(world.service, world.fx, method, path, body);
}

/** How many requests with this `webhook-id` the receiver got, and how many it accepted. */
function hitsOf(eventId: string) {
  return world.receiver.at("/flaky").filter((hit) => hit.headers.get("webhook-id") === eventId);
}

describe("resend and recover through the internal API, over real HTTP", () => {
  test("recover resends exactly the failed deliveries since the chosen time, once, with their ids; twice does nothing new; resend sends one again", async () => {
    const org = await world.fx.organization();
    const endpoint = await world.fx.endpoint(
      world.receiver.url("/flaky"),
      ["story.submitted"],
      org,
    );
    const events = [
      (await world.fx.submitted(org)).eventId,
      (await world.fx.submitted(org)).eventId,
      (await world.fx.submitted(org)).eventId,
    ];
    await eventually(
      async () => {
        const rows = await world.fx.deliveriesOf(endpoint.id);
        return rows.length === 3 && rows.every((row) => row.status === "failed");
      },
      { message: "three failed deliveries" },
    );
    // Three failed deliveries in a row disabled the endpoint.
    expect((await world.fx.endpointRow(endpoint.id)).status).toBe("disabled");
    const [old, ...recent] = events as [string, string, string];
    const oldRow = (await world.fx.delivery(endpoint.id, old))!;
    await world.fx.db
      .update(webhookDeliveries)
      .set({ createdAt: new Date(Date.now() - 2 * 86_400_000) })
      .where(eq(webhookDeliveries.id, oldRow.id));
    const hitsBefore = world.receiver.at("/flaky").length;
    expect(hitsBefore).toBe(24);

    down = false;
    const base = `/orgs/${org}/webhook-endpoints/${endpoint.id}`;
    const since = new Date(Date.now() - 86_400_000).toISOString();
    // Disabled: nothing is resent until it is enabled again.
    expect((await call("POST", `${base}/recover`, { since })).status).toBe(409);
    expect((await call("POST", `${base}/enable`)).body).toMatchObject({ status: "enabled" });
    const first = await call("POST", `${base}/recover`, { since });
    expect(first.body).toEqual({ endpoint_id: endpoint.id, since, resent: 2 });
    // Pressed again at once: the two are pending (or delivered) now, nothing new is resent.
    const second = await call("POST", `${base}/recover`, { since });
    expect(second.body.resent).toBe(0);

    for (const eventId of recent) {
      const row = await eventually(
        async () => {
          const current = await world.fx.delivery(endpoint.id, eventId);
          return current?.status === "delivered" ? current : null;
        },
        { message: "the recovered delivery" },
      );
      expect(row.attempts).toBe(1);
      expect(row.lastStatusCode).toBe(200);
    }
    await Bun.sleep(200);
    const after = world.receiver.at("/flaky").slice(hitsBefore);
    expect(after.map((hit) => hit.headers.get("webhook-id")).sort()).toEqual([...recent].sort());
    expect((await world.fx.delivery(endpoint.id, old))!.status).toBe("failed");
    expect(hitsOf(old)).toHaveLength(8);

    // Resend the old one: a new series, the same webhook-id, delivered once.
    const resend = `/orgs/${org}/webhook-deliveries/${oldRow.id}/resend`;
    const resent = await call("POST", resend);
    expect(resent.body).toMatchObject({ id: oldRow.id, status: "pending", attempts: 0 });
    const delivered = await eventually(
      async () => {
        const current = await world.fx.delivery(endpoint.id, old);
        return current?.status === "delivered" ? current : null;
      },
      { message: "the resent delivery" },
    );
    expect(delivered.id).toBe(oldRow.id);
    expect(delivered.attempts).toBe(1);
    expect(hitsOf(old)).toHaveLength(9);
    expect(JSON.parse(hitsOf(old).at(-1)!.body).id).toBe(old);

    // A delivered delivery may be resent too; a pending one may not. The receiver holds its
    // answer meanwhile, so the resent delivery is still pending at the second call.
    let release = () => {};
    held = new Promise((resolve) => {
      release = resolve;
    });
    expect((await call("POST", resend)).status).toBe(200);
    expect((await call("POST", resend)).status).toBe(409);
    release();
    held = null;
    await eventually(() => hitsOf(old).length === 10, { message: "the second resend" });
  });
});
