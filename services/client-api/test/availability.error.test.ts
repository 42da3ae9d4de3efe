import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashKey } from "@newsroom/shared/api-keys";
import { loadConfig } from "@newsroom/shared/config";
import { edge } from "@newsroom/shared/http/edge";
import { log } from "@newsroom/shared/log";
import { requireService } from "@newsroom/shared/testing/database";
import postgres from "postgres";
import { createClientApiApp } from "../src/app.ts";
import { findKeyByHash } from "../src/auth/store.ts";
import { clientApiFixture, type Fixture } from "./support/fixture.ts";
import { CLIENT_ROUTES } from "./support/security-cases.ts";

const config = loadConfig({ SERVICE_ENV: "development" });
const KEY = `armk_test_${"k".repeat(43)}`;

describe("503 api_unavailable", () => {
  test("without a database every route answers 503 with Retry-After", async () => {
    const api = createClientApiApp({ db: undefined, config });
    for (const [name, route] of Object.entries(CLIENT_ROUTES)) {
      const path = route.path({
        a: { decided: crypto.randomUUID(), endpointIds: [crypto.randomUUID()] },
      } as never);
      const response = await api.app.handle(
        new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${KEY}` } }),
      );
      expect(`${name} ${response.status}`).toBe(`${name} 503`);
      expect(response.headers.get("retry-after")).toBe("60");
      expect(response.headers.get("cache-control")).toBe("private, no-store");
      const body = await response.json();
      expect(body.error).toMatchObject({ code: "api_unavailable", type: "unavailable" });
    }
    await api.keyUsage.stop();
  });
});

describe("a database that stops answering", () => {
  let f: Fixture;
  const lines: string[] = [];
  const writes = { out: process.stdout.write, err: process.stderr.write };

  beforeAll(async () => {
    f = await clientApiFixture();
  });
  afterAll(async () => {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    log.setSilent(true);
    await f.api.keyUsage.stop();
  });

  test("gives 503 api_unavailable, and the log never holds the key", async () => {
    const feedKey = f.keys.feedOnly;
    expect((await f.get(`/v1/feed.xml?key=${feedKey}`)).status).toBe(200);
    await f.database.close();
    log.setSilent(false);
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    const handle = edge((request) => f.api.app.handle(request), { trustedProxies: "" });
    const viaQuery = await handle(new Request(`http://localhost/v1/feed.xml?key=${feedKey}`));
    const viaHeader = await f.get("/v1/stories", { key: f.a.key });
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    for (const response of [viaQuery, viaHeader]) {
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("60");
      expect((await response.json()).error.code).toBe("api_unavailable");
    }
    const logged = lines.join("");
    expect(logged).toContain("key lookup failed");
    expect(logged).toContain(viaQuery.headers.get("x-request-id")!);
    expect(logged).not.toContain(feedKey);
    expect(logged).not.toContain(f.a.key);
    expect(logged).not.toContain("key=");
  });
});

describe("a database that fails after the key check", () => {
  test("a list answers 503 api_unavailable with Retry-After, not 500", async () => {
    const f = await clientApiFixture();
    const api = createClientApiApp({ db: f.db, config });
    // The key check answers from the row read before the database goes: only the page fails.
    const stored = await findKeyByHash(f.db, hashKey(f.a.key));
    api.deps.findKey = async () => stored;
    const handle = edge((request) => api.app.handle(request), { trustedProxies: "" });
    const list = (limit: number) =>
      handle(
        new Request(`http://localhost/v1/stories?limit=${limit}`, {
          headers: { authorization: `Bearer ${f.a.key}` },
        }),
      );
    try {
      expect((await list(1)).status).toBe(200);
      await f.database.close();
      const response = await list(2);
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("60");
      expect(response.headers.get("cache-control")).toBe("private, no-store");
      const body = await response.json();
      expect(body.error).toMatchObject({ code: "api_unavailable", type: "unavailable" });
    } finally {
      await api.keyUsage.stop();
      await f.api.keyUsage.stop();
    }
  });
});

describe("a lock held elsewhere", () => {
  const url = requireService("DATABASE_URL");
  test.skipIf(!url)(
    "a list waits no longer than the lock timeout, then answers 503 with Retry-After",
    async () => {
      const f = await clientApiFixture();
      const holder = postgres(f.database.url!, { max: 1, onnotice: () => {} });
      const session = await holder.reserve();
      try {
        await session`begin`;
        await session`lock table stories in access exclusive mode`;
        const started = Date.now();
        const response = await f.get("/v1/stories", { key: f.a.key });
        const elapsed = Date.now() - started;
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("60");
        expect((await response.json()).error.code).toBe("api_unavailable");
        // The lock timeout (3 s by default), not the holder, decides when the request ends.
        expect(elapsed).toBeLessThan(6_000);
      } finally {
        await session`rollback`;
        session.release();
        await holder.end();
        await f.close();
      }
    },
    30_000,
  );
});
