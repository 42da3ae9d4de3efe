import { describe, expect, test } from "bun:test";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
} from "@newsroom/shared/rate-limit";
import { ErrorOut } from "@newsroom/shared/records";
import { requireService } from "@newsroom/shared/testing/database";
import { Value } from "@sinclair/typebox/value";
import { createGateway } from "../src/app.ts";
import { CHECKOUT_LIMIT } from "../src/rate-limits.ts";

/**
 * The public reads' limits at the gateway: PUBLIC_RATE_LIMIT_PER_MINUTE per client address for
 * GET /v1/public/*, and 30 checkout summaries a minute per address on top, on the memory store
 * and on Redis. The service behind is a stand-in that counts what reaches it.
 */
const redisUrl = requireService("REDIS_URL");
const PER_MINUTE = 40;

function gatewayOn(store: RateLimitStore, env: Record<string, string> = {}) {
  const seen = { count: 0 };
  const gateway = createGateway({
    config: loadConfig({ PUBLIC_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), ...env }),
    mode: "embedded",
    rateLimits: store,
    upstreams: {
      "public-read": async () => {
        seen.count += 1;
        return Response.json({ items: [] });
      },
    },
    readinessChecks: [],
  });
  const handle = edge((request) => gateway.handle(request), { trustedProxies: "" });
  const send = (ip: string, path = "/v1/public/newsroom", method = "GET") =>
    handle(new Request(`http://localhost${path}`, { method, headers: { "x-client-ip": ip } }));
  return { send, seen };
}

function uniqueIp(): string {
  const n = () => Math.floor(Math.random() * 250) + 1;
  return `10.${n()}.${n()}.${n()}`;
}

/** Redis windows are aligned to the minute: start a sequence well inside one. */
async function awayFromWindowEdge(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 45_000) await Bun.sleep(60_000 - intoWindow + 50);
}

async function expectTooMany(response: Response): Promise<void> {
  expect(response.status).toBe(429);
  expect(response.headers.get("retry-after")).toBe("60");
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = await response.json();
  expect(Value.Check(ErrorOut, body)).toBe(true);
  expect(body.error).toMatchObject({ code: "too_many_requests", type: "rate_limited" });
  expect(body.error.request_id).toBe(response.headers.get("x-request-id"));
}

async function expectPasses(responses: (Response | Promise<Response>)[]): Promise<void> {
  for (const [i, response] of (await Promise.all(responses)).entries()) {
    if (response.status !== 200) throw new Error(`request ${i + 1} answered ${response.status}`);
  }
}

const stores: [string, () => RateLimitStore][] = [["memory", () => new MemoryRateLimitStore()]];
if (redisUrl) {
  stores.push([
    "redis",
    () => new RedisRateLimitStore(redisUrl, `t:${Math.random().toString(36).slice(2, 10)}:`),
  ]);
}

for (const [kind, makeStore] of stores) {
  describe(`public read limits on the ${kind} store`, () => {
    test("one address: the limit passes, the next is 429 and never reaches the service", async () => {
      const store = makeStore();
      const { send, seen } = gatewayOn(store);
      const ip = uniqueIp();
      if (store.kind === "redis") await awayFromWindowEdge();
      const paths = ["/v1/public/newsroom", "/v1/public/newsroom/no-such-slug", "/v1/public/x"];
      await expectPasses(Array.from({ length: PER_MINUTE }, (_, i) => send(ip, paths[i % 3])));
      expect(seen.count).toBe(PER_MINUTE);
      await expectTooMany(await send(ip, "/v1/public/newsroom?cursor=forged"));
      // HEAD as GET: the same refusal, without its body.
      const head = await send(ip, "/v1/public/newsroom", "HEAD");
      expect([head.status, head.headers.get("retry-after"), await head.text()]).toEqual([
        429,
        "60",
        "",
      ]);
      expect(seen.count).toBe(PER_MINUTE);
      // Another address, a form post of the same address, and the gateway's health are untouched.
      expect((await send(uniqueIp())).status).toBe(200);
      expect((await send(ip, "/v1/public/newsroom", "POST")).status).toBe(200);
      expect((await send(ip, "/health")).status).toBe(200);
      await store.close();
    }, 60_000);

    test("checkout: 30 a minute per address, while the address's other reads go on", async () => {
      const store = makeStore();
      const { send, seen } = gatewayOn(store, { PUBLIC_RATE_LIMIT_PER_MINUTE: "1200" });
      const ip = uniqueIp();
      const checkout = (n: number) => `/v1/public/checkout/cs_test_${String(n).padStart(12, "0")}`;
      if (store.kind === "redis") await awayFromWindowEdge();
      await expectPasses(Array.from({ length: CHECKOUT_LIMIT }, (_, i) => send(ip, checkout(i))));
      await expectTooMany(await send(ip, checkout(CHECKOUT_LIMIT)));
      expect(seen.count).toBe(CHECKOUT_LIMIT);
      expect((await send(ip)).status).toBe(200);
      expect((await send(uniqueIp(), checkout(0))).status).toBe(200);
      await store.close();
    }, 60_000);

    test("IPv6 addresses in one /64 share the limit; the next /64 does not", async () => {
      const store = makeStore();
      const { send } = gatewayOn(store);
      const n = () => (Math.floor(Math.random() * 0xfffe) + 1).toString(16);
      const prefix = `2001:db8:${n()}:${n()}`;
      if (store.kind === "redis") await awayFromWindowEdge();
      await expectPasses(
        Array.from({ length: PER_MINUTE }, (_, i) => send(`${prefix}:${i.toString(16)}::1`)),
      );
      await expectTooMany(await send(`${prefix}::ffff`));
      expect((await send(`${prefix.slice(0, prefix.lastIndexOf(":"))}:0::1`)).status).toBe(200);
      await store.close();
    }, 60_000);
  });
}

test("the public read limit is 1,200 a minute per address unless configured", () => {
  expect(loadConfig({}).PUBLIC_RATE_LIMIT_PER_MINUTE).toBe(1200);
  expect(() => loadConfig({ PUBLIC_RATE_LIMIT_PER_MINUTE: "0" })).toThrow(
    /PUBLIC_RATE_LIMIT_PER_MINUTE/,
  );
});

describe.skipIf(!redisUrl)("two gateway replicas on one Redis", () => {
  test("each counts public reads itself (no Redis round trip per read); checkouts are counted together", async () => {
    const prefix = `t:${Math.random().toString(36).slice(2, 10)}:`;
    const [storeA, storeB] = [
      new RedisRateLimitStore(redisUrl!, prefix),
      new RedisRateLimitStore(redisUrl!, prefix),
    ];
    const a = gatewayOn(storeA);
    const b = gatewayOn(storeB);
    const ip = uniqueIp();
    await awayFromWindowEdge();
    await expectPasses(Array.from({ length: PER_MINUTE }, () => a.send(ip)));
    await expectPasses(Array.from({ length: PER_MINUTE }, () => b.send(ip)));
    await expectTooMany(await a.send(ip));
    await expectTooMany(await b.send(ip));

    const other = uniqueIp();
    const checkout = (n: number) => `/v1/public/checkout/cs_test_${String(n).padStart(12, "0")}`;
    const half = CHECKOUT_LIMIT / 2;
    await expectPasses(Array.from({ length: half }, (_, i) => a.send(other, checkout(i))));
    await expectPasses(Array.from({ length: half }, (_, i) => b.send(other, checkout(half + i))));
    await expectTooMany(await a.send(other, checkout(CHECKOUT_LIMIT)));
    await expectTooMany(await b.send(other, checkout(CHECKOUT_LIMIT)));
    await storeA.close();
    await storeB.close();
  }, 90_000);
});
