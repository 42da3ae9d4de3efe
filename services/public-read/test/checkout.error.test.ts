import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createPublicReadService } from "../src/app.ts";
import { type FakeStripe, startFakeStripe, subscriptionSession } from "./support/fake-stripe.ts";
import { type Answer, client, testConfig } from "./support/world.ts";

const SLOW = 60_000;
let stripe: FakeStripe;
let database: TestDatabase;
const stops: (() => Promise<void>)[] = [];

async function serviceWith(env: Record<string, string>) {
  const service = await createPublicReadService(testRuntime({ database, config: testConfig(env) }));
  stops.push(() => service.stop());
  return client(service);
}

function expectUnavailable(answer: Answer): void {
  expect(answer.status).toBe(503);
  expect(answer.body.error.type).toBe("unavailable");
  expect(answer.headers.get("retry-after")).toBe("60");
  expect(answer.headers.get("cache-control")).toBe("no-store");
}

beforeAll(async () => {
  stripe = startFakeStripe();
  stripe.sessions.set("cs_test_KnownSession01", subscriptionSession("cs_test_KnownSession01"));
  database = await testDatabase();
}, SLOW);
afterAll(async () => {
  for (const stop of stops) await stop();
  await database.close();
  await stripe.stop();
});

describe("checkout summary errors", () => {
  test("an unknown session is 404 not_found", async () => {
    const get = await serviceWith({ STRIPE_SECRET_KEY: stripe.key, STRIPE_API_BASE: stripe.url });
    const answer = await get("/v1/public/checkout/cs_test_UnknownSession1");
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe("not_found");
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  test("without STRIPE_SECRET_KEY the route answers 503", async () => {
    const before = stripe.requests.length;
    const get = await serviceWith({});
    const answer = await get("/v1/public/checkout/cs_test_KnownSession01");
    expectUnavailable(answer);
    expect(answer.body.error.message).toContain("not configured");
    expect(stripe.requests.length).toBe(before);
  });

  test(
    "a key Stripe refuses, a Stripe failure or no answer: 503, nothing leaked",
    async () => {
      const wrongKey = await serviceWith({
        STRIPE_SECRET_KEY: "sk_test_wrong",
        STRIPE_API_BASE: stripe.url,
      });
      const refused = await wrongKey("/v1/public/checkout/cs_test_KnownSession01");
      expectUnavailable(refused);
      expect(refused.text).not.toContain("sk_test");

      stripe.failing.add("cs_test_FailingSession1");
      const get = await serviceWith({ STRIPE_SECRET_KEY: stripe.key, STRIPE_API_BASE: stripe.url });
      expectUnavailable(await get("/v1/public/checkout/cs_test_FailingSession1"));

      const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
      const port = closed.port;
      await closed.stop(true);
      const unreachable = await serviceWith({
        STRIPE_SECRET_KEY: stripe.key,
        STRIPE_API_BASE: `http://127.0.0.1:${port}`,
      });
      expectUnavailable(await unreachable("/v1/public/checkout/cs_test_KnownSession01"));
    },
    SLOW,
  );

  test("an id not matching the pattern is 400 before Stripe is asked", async () => {
    const before = stripe.requests.length;
    const get = await serviceWith({ STRIPE_SECRET_KEY: stripe.key, STRIPE_API_BASE: stripe.url });
    for (const id of [
      "cs_test_short",
      "cs_other_abcdefghijk",
      "sub_test_abcdefghijk",
      "cs_test_abc%2F..%2Fx",
    ]) {
      const answer = await get(`/v1/public/checkout/${id}`);
      expect(answer.status, id).toBe(400);
      expect(answer.body.error.code).toBe("invalid_parameters");
      expect(answer.body.error.fields[0].field).toBe("id");
    }
    expect(stripe.requests.length).toBe(before);
  });
});
