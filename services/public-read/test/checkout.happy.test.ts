import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import { cachedCheckoutReader } from "../src/checkout/summary-cache.ts";
import { type FakeStripe, startFakeStripe, subscriptionSession } from "./support/fake-stripe.ts";
import { type Answer, client, type Service, testConfig } from "./support/world.ts";

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
  service = await createPublicReadService(testRuntime({ database, config }));
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

  test("an open session is read fresh every time: its completion shows at once", async () => {
    const id = "cs_test_ChangingSession1";
    stripe.sessions.set(id, subscriptionSession(id, { status: "open", payment_status: "unpaid" }));
    expect((await get(`/v1/public/checkout/${id}`)).body.status).toBe("open");
    stripe.sessions.set(id, subscriptionSession(id));
    expect((await get(`/v1/public/checkout/${id}`)).body.status).toBe("complete");
  });
});

describe("checkout summary cache", () => {
  const callsFor = (id: string) =>
    stripe.requests.filter((seen) => seen.path === `/v1/checkout/sessions/${id}`).length;

  test("a final summary read again within a minute costs one Stripe call", async () => {
    const id = "cs_test_PaidSession00001";
    stripe.sessions.set(id, subscriptionSession(id));
    const first = await get(`/v1/public/checkout/${id}`);
    const again = await get(`/v1/public/checkout/${id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("cache-control")).toBe("no-store");
    expect(callsFor(id)).toBe(1);
  });

  test("concurrent reads of one session make one Stripe call", async () => {
    const id = "cs_test_ConcurrentSess01";
    stripe.sessions.set(id, subscriptionSession(id, { status: "open", payment_status: "unpaid" }));
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => get(`/v1/public/checkout/${id}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(callsFor(id)).toBe(1);
  });

  test("an unknown session is asked again each time, and never kept", async () => {
    const id = "cs_test_NotYetKnown00001";
    expect((await get(`/v1/public/checkout/${id}`)).status).toBe(404);
    stripe.sessions.set(id, subscriptionSession(id));
    expect((await get(`/v1/public/checkout/${id}`)).status).toBe(200);
    expect(callsFor(id)).toBe(2);
  });

  test("memory is bounded: past the limit the oldest session goes first", async () => {
    const asked: string[] = [];
    const reader = cachedCheckoutReader(
      {
        async summary(sessionId) {
          asked.push(sessionId);
          return { ok: true, summary: { ...SETTLED, currency: sessionId } };
        },
      },
      { maxEntries: 3 },
    );
    for (const id of ["a", "b", "c", "d", "b", "c", "d"]) await reader.summary(id);
    expect(asked).toEqual(["a", "b", "c", "d"]);
    await reader.summary("a");
    expect(asked).toEqual(["a", "b", "c", "d", "a"]);
  });
});

const SETTLED = {
  status: "complete",
  payment_status: "paid",
  plan: null,
  interval: null,
  amount_total: 100,
  currency: "eur",
} as const;
