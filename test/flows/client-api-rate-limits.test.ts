import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClientApiApp } from "@newsroom/client-api/app";
import { createGateway } from "@newsroom/gateway/app";
import { KEY_SCOPES } from "@newsroom/shared/api-keys";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
} from "@newsroom/shared/rate-limit";
import { insertApiKey, insertOrganization } from "@newsroom/shared/testing/builders";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";

/**
 * A flow across two services: the client API's limits at the boundary, through real gateways in
 * front of the real client-API app (which answers the key check): 300 per 60 s per key, 600 a
 * minute per client IP, on the memory store and on Redis, and shared by two gateway replicas on
 * one Redis.
 */
const redisUrl = requireService("REDIS_URL");
const config = loadConfig({ SERVICE_ENV: "development" });

let database: TestDatabase;
let api: ReturnType<typeof createClientApiApp>;
let orgId: string;

beforeAll(async () => {
  database = await testDatabase();
  const org = await insertOrganization(database.db, {
    slug: `rl-${Math.random().toString(36).slice(2, 8)}`,
    name: "Limits",
    newsroomRunning: true,
  });
  orgId = org.id;
  api = createClientApiApp({ db: database.db, config });
});

afterAll(async () => {
  await api.keyUsage.stop();
  await database.close();
});

async function newKey(): Promise<string> {
  const { secret } = await insertApiKey(database.db, orgId, {
    environment: "test",
    scopes: KEY_SCOPES,
  });
  return secret;
}

function gatewayOn(store: RateLimitStore) {
  const gateway = createGateway({
    config,
    mode: "embedded",
    rateLimits: store,
    upstreams: { "client-api": async (request) => api.app.handle(request) },
    readinessChecks: [],
  });
  const handle = edge((request) => gateway.handle(request), { trustedProxies: "" });
  return (ip: string, key?: string, scheme = "Bearer ") =>
    handle(
      new Request("http://localhost/v1/webhook_endpoints", {
        headers: { "x-client-ip": ip, ...(key ? { authorization: `${scheme}${key}` } : {}) },
      }),
    );
}

function uniqueIp(): string {
  const n = () => Math.floor(Math.random() * 250) + 1;
  return `10.${n()}.${n()}.${n()}`;
}

/** A random /64 under the documentation prefix, as its first four groups. */
function uniqueIpv6Prefix(): string {
  const n = () => (Math.floor(Math.random() * 0xfffe) + 1).toString(16);
  return `2001:db8:${n()}:${n()}`;
}

/** Redis windows are aligned to the minute: start a sequence well inside one. */
async function awayFromWindowEdge(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 45_000) await Bun.sleep(60_000 - intoWindow + 50);
}

async function expectTooMany(response: Response): Promise<void> {
  expect(response.status).toBe(429);
  expect(response.headers.get("retry-after")).toBe("60");
  const body = await response.json();
  expect(body.error).toMatchObject({ code: "too_many_requests", type: "rate_limited" });
  expect(body.error.request_id).toBe(response.headers.get("x-request-id"));
}

const stores: [string, () => RateLimitStore][] = [["memory", () => new MemoryRateLimitStore()]];
if (redisUrl) {
  stores.push([
    "redis",
    () => new RedisRateLimitStore(redisUrl, `t:${Math.random().toString(36).slice(2, 10)}:`),
  ]);
}

for (const [kind, makeStore] of stores) {
  describe(`client-API limits on the ${kind} store`, () => {
    test("the 300th request of a key passes, the 301st gets 429; another key is untouched", async () => {
      const store = makeStore();
      const get = gatewayOn(store);
      const key = await newKey();
      if (store.kind === "redis") await awayFromWindowEdge();
      for (let i = 1; i <= 300; i++) {
        // Spread over addresses so that only the key's limit is in play.
        const response = await get(uniqueIp(), key);
        if (response.status !== 200) throw new Error(`request ${i} answered ${response.status}`);
        if (i === 300) expect(response.headers.get("ratelimit-policy")).toBe("300;w=60");
      }
      await expectTooMany(await get(uniqueIp(), key));
      const other = await get(uniqueIp(), await newKey());
      expect(other.status).toBe(200);
      expect(other.headers.get("ratelimit-policy")).toBe("300;w=60");
      await store.close();
    }, 60_000);

    test("the scheme's case and extra spaces do not escape a key's limit", async () => {
      const store = makeStore();
      const get = gatewayOn(store);
      const key = await newKey();
      const schemes = ["bearer ", "BEARER ", "Bearer   ", "bEaReR  "];
      if (store.kind === "redis") await awayFromWindowEdge();
      for (let i = 1; i <= 300; i++) {
        const response = await get(uniqueIp(), key, schemes[i % schemes.length]);
        if (response.status !== 200) throw new Error(`request ${i} answered ${response.status}`);
      }
      for (const scheme of [...schemes, "Bearer "]) {
        await expectTooMany(await get(uniqueIp(), key, scheme));
      }
      await store.close();
    }, 60_000);

    test("a tab between the scheme and the key (RFC 6750: spaces only) is 401 invalid_api_key", async () => {
      const store = makeStore();
      const get = gatewayOn(store);
      const key = await newKey();
      for (const scheme of ["Bearer\t", "Bearer \t", "bearer\t "]) {
        const response = await get(uniqueIp(), key, scheme);
        expect(response.status).toBe(401);
        const body = await response.json();
        expect(body.error.code).toBe("invalid_api_key");
        expect(response.headers.get("www-authenticate")).toBe("Bearer");
      }
      expect((await get(uniqueIp(), key)).status).toBe(200);
      await store.close();
    });

    test("the 600th request from one address passes, the 601st gets 429 whatever the key", async () => {
      const store = makeStore();
      const get = gatewayOn(store);
      const ip = uniqueIp();
      const keys = [await newKey(), await newKey()];
      if (store.kind === "redis") await awayFromWindowEdge();
      for (let i = 1; i <= 600; i++) {
        const response = await get(ip, keys[i % 2]);
        if (response.status !== 200) throw new Error(`request ${i} answered ${response.status}`);
      }
      await expectTooMany(await get(ip, await newKey()));
      await expectTooMany(await get(ip));
      expect((await get(uniqueIp(), await newKey())).status).toBe(200);
      await store.close();
    }, 60_000);

    test("IPv6 addresses in one /64 share the address limit; the next /64 does not", async () => {
      const store = makeStore();
      const get = gatewayOn(store);
      const prefix = uniqueIpv6Prefix();
      if (store.kind === "redis") await awayFromWindowEdge();
      for (let i = 1; i <= 600; i++) {
        // No key: the client API answers 401, and each answer counts against the address.
        const response = await get(i % 2 ? `${prefix}::1` : `${prefix}:ffff:ffff:ffff:fffe`);
        if (response.status !== 401) throw new Error(`request ${i} answered ${response.status}`);
      }
      await expectTooMany(await get(`${prefix}:1234::5`));
      expect((await get(`${prefix.slice(0, prefix.lastIndexOf(":"))}:0::1`)).status).toBe(401);
      await store.close();
    }, 60_000);
  });
}

if (redisUrl) {
  describe("two gateway replicas on one Redis", () => {
    test("share one count per key: 150 + 150 pass, the 301st fails on either", async () => {
      const prefix = `t:${Math.random().toString(36).slice(2, 10)}:`;
      const storeOne = new RedisRateLimitStore(redisUrl, prefix);
      const storeTwo = new RedisRateLimitStore(redisUrl, prefix);
      const one = gatewayOn(storeOne);
      const two = gatewayOn(storeTwo);
      const key = await newKey();
      await awayFromWindowEdge();
      for (let i = 1; i <= 300; i++) {
        const response = await (i % 2 ? one : two)(uniqueIp(), key);
        if (response.status !== 200) throw new Error(`request ${i} answered ${response.status}`);
      }
      await expectTooMany(await one(uniqueIp(), key));
      await expectTooMany(await two(uniqueIp(), key));
      await storeOne.close();
      await storeTwo.close();
    }, 60_000);

    test("share one count per address: 300 + 300 pass, the 601st fails on either", async () => {
      const prefix = `t:${Math.random().toString(36).slice(2, 10)}:`;
      const storeOne = new RedisRateLimitStore(redisUrl, prefix);
      const storeTwo = new RedisRateLimitStore(redisUrl, prefix);
      const one = gatewayOn(storeOne);
      const two = gatewayOn(storeTwo);
      const ip = uniqueIp();
      await awayFromWindowEdge();
      for (let i = 1; i <= 600; i++) {
        // No key: the client API answers 401, and each answer still counts against the address.
        const response = await (i % 2 ? one : two)(ip);
        if (response.status !== 401) throw new Error(`request ${i} answered ${response.status}`);
      }
      await expectTooMany(await one(ip));
      await expectTooMany(await two(ip, await newKey()));
      await storeOne.close();
      await storeTwo.close();
    }, 60_000);
  });
}
