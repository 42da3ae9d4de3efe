import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ServiceHandle } from "@newsroom/shared/service";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type Receiver, startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { createWebhooksService } from "../src/app.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

/** An endpoint limited to topics gets only the events of stories with one of them. */
let fx: Fixture;
let receiver: Receiver;
let service: ServiceHandle;

beforeAll(async () => {
  fx = await webhooksFixture();
  receiver = startReceiver();
  service = await createWebhooksService(fx.runtime(), { pollIntervalMs: 20 });
});

afterAll(async () => {
  await service.stop();
  receiver.stop();
  await fx.close();
});

describe("topic filters", () => {
  test("only stories with one of the endpoint's topics are delivered to it; unlimited endpoints get all", async () => {
    const org = await fx.organization();
    const limited = await fx.endpoint(receiver.url("/climate"), ["story.submitted"], org, {
      topics: ["climate", "energy"],
    });
    const everything = await fx.endpoint(receiver.url("/all"), ["story.submitted"], org);
    expect((await fx.endpointRow(limited.id)).topics).toEqual(["climate", "energy"]);
    expect((await fx.endpointRow(everything.id)).topics).toBeNull();

    const climate = await fx.submitted(org, ["climate"]);
    const both = await fx.submitted(org, ["energy", "sport"]);
    const sport = await fx.submitted(org, ["sport"]);
    const none = await fx.submitted(org);

    await eventually(() => receiver.at("/all").length === 4, { message: "four deliveries" });
    await eventually(() => receiver.at("/climate").length === 2, { message: "two deliveries" });
    const ids = receiver.at("/climate").map((hit) => hit.headers.get("webhook-id"));
    expect(ids.sort()).toEqual([climate.eventId, both.eventId].sort());
    // No delivery row at all for the others: filtered at fan-out, not at sending.
    expect(await fx.delivery(limited.id, sport.eventId)).toBeUndefined();
    expect(await fx.delivery(limited.id, none.eventId)).toBeUndefined();
    await Bun.sleep(200);
    expect(receiver.at("/climate")).toHaveLength(2);
  });
});
