import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { createPublicReadService } from "../src/app.ts";
import { type FakeStripe, startFakeStripe, subscriptionSession } from "./support/fake-stripe.ts";
import { type Answer, client, type Service, testConfig, testRuntime } from "./support/world.ts";

/** The checkout summary through the Stripe SDK, against a local server that answers like Stripe. */
const SLOW = 60_000;
let stripe: FakeStripe;
let database: TestDatabase;
let service: Service;
let get: (path: string) => Promise<Answer>;

beforeAll(async () => {
  stripe = startFakeStripe();
  database = await testDatabase();
  const config = testConfig({ STRIPE_SECRET_KEY: stripe.key, STRIPE_API_BASE: stripe.url });
  service = await createPublicReadService(testRuntime(database, undefined, config));
  get = client(service);
}, SLOW);
afterAll(async () => {
  await service.stop();
  await database.close();
  await stripe.stop();
});

describe("checkout summary", () => {
  test("a complete subscription session: the summary fields and nothing else", async () => {
    const id = "cs_test_a1B2c3D4e5F6g7H8";
    stripe.sessions.set(id, subscriptionSession(id));
    const answer = await get(`/v1/public/checkout/${id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: "complete",
      payment_status: "paid",
      plan: { id: "newsroom-pro-monthly", name: "Newsroom Pro" },
      interval: "month",
      amount_total: 4900,
      currency: "eur",
    });
    expect(answer.text).not.toContain("buyer@example.com");
    expect(answer.text).not.toContain("cus_");
    expect(answer.headers.get("cache-control")).toBe("no-store");

    const seen = stripe.requests.at(-1)!;
    expect(seen.method).toBe("GET");
    expect(seen.path).toBe(`/v1/checkout/sessions/${id}`);
    expect(seen.authorization).toBe(`Bearer ${stripe.key}`);
    expect([...seen.query.values()]).toContain("line_items.data.price.product");
  });

  test("an open session without line items takes its plan from the metadata", async () => {
    const id = "cs_live_OpenSession0001";
    stripe.sessions.set(
      id,
      subscriptionSession(id, {
        status: "open",
        payment_status: "unpaid",
        line_items: undefined,
        metadata: { plan_id: "newsroom-starter", plan_name: "Newsroom Starter" },
        amount_total: 1900,
      }),
    );
    const answer = await get(`/v1/public/checkout/${id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: "open",
      payment_status: "unpaid",
      plan: { id: "newsroom-starter", name: "Newsroom Starter" },
      interval: null,
      amount_total: 1900,
      currency: "eur",
    });
  });

  test("an expired session with no plan and no amount", async () => {
    const id = "cs_test_ExpiredSession01";
    stripe.sessions.set(
      id,
      subscriptionSession(id, {
        status: "expired",
        payment_status: "unpaid",
        line_items: { object: "list", data: [], has_more: false, url: "/x" },
        amount_total: null,
        currency: null,
      }),
    );
    const answer = await get(`/v1/public/checkout/${id}`);
    expect(answer.body).toEqual({
      status: "expired",
      payment_status: "unpaid",
      plan: null,
      interval: null,
      amount_total: null,
      currency: null,
    });
  });

  test("the summary is read fresh every time (no cache)", async () => {
    const id = "cs_test_ChangingSession1";
    stripe.sessions.set(id, subscriptionSession(id, { status: "open", payment_status: "unpaid" }));
    expect((await get(`/v1/public/checkout/${id}`)).body.status).toBe("open");
    stripe.sessions.set(id, subscriptionSession(id));
    expect((await get(`/v1/public/checkout/${id}`)).body.status).toBe("complete");
  });
});
