import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { loadConfig } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { schema } from "@newsroom/shared/db/index";
import { edge } from "@newsroom/shared/http/edge";
import { ReadCache } from "@newsroom/shared/read-cache";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { requireService, testDatabase } from "@newsroom/shared/testing/database";
import { genericPlan, planNodes } from "@newsroom/shared/testing/generic-plan";
import { freePort } from "@newsroom/shared/testing/ports";
import { waitForReady } from "@newsroom/shared/testing/servers";
import type { Subprocess } from "bun";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { createClientApiApp } from "../src/app.ts";
import { clientApiFixture } from "./support/fixture.ts";

/**
 * Distributed mode as in production: two client-api processes behind one gateway, on the real
 * PostgreSQL, JetStream and Redis, each caching answers. A change made through the workspace,
 * and a revocation, hold on the very next request through either replica.
 */
const databaseUrl = requireService("DATABASE_URL");
const natsUrl = requireService("NATS_URL");
const redisUrl = requireService("REDIS_URL");
const ready = Boolean(databaseUrl && natsUrl && redisUrl);

const root = new URL("../../../", import.meta.url).pathname;
const ADMIN_TOKEN = "replicas-test-admin-token";
const suffix = Math.random().toString(36).slice(2, 8);
const stream = `T_REPLICAS_${suffix.toUpperCase()}`;

describe.skipIf(!ready)("two client-api replicas behind one gateway", () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  const children: Subprocess[] = [];
  let balancer: ReturnType<typeof Bun.serve>;
  /** Which replica the balancer sends the next request to; each request it serves is noted. */
  let next = 0;
  const served: number[] = [];
  let gateway = "";
  let workspace = "";

  beforeAll(
    async () => {
      database = await testDatabase({ backend: "postgres" });
      const env = {
        PATH: process.env.PATH,
        DATABASE_URL: database.url,
        NATS_URL: natsUrl,
        NATS_STREAM: stream,
        NATS_SUBJECT_PREFIX: `rep${suffix}.`,
        REDIS_URL: redisUrl,
        RATE_LIMIT_PREFIX: `rl-${suffix}:`,
        ADMIN_TOKEN,
        LOG_LEVEL: "error",
      };
      const spawn = (entry: string, extra: Record<string, string>) => {
        const child = Bun.spawn([process.execPath, entry], {
          cwd: root,
          env: { ...env, ...extra },
          stdout: "inherit",
          stderr: "inherit",
        });
        children.push(child);
      };
      const [workspacePort, replicaA, replicaB, gatewayPort] = await Promise.all([
        freePort(),
        freePort(),
        freePort(),
        freePort(),
      ]);
      const replicas = [replicaA, replicaB];
      // A Kubernetes Service in miniature: every request to one of the two replicas, in turn.
      balancer = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (request) => {
          const url = new URL(request.url);
          const replica = url.pathname.startsWith("/health") ? 0 : next;
          if (!url.pathname.startsWith("/health")) {
            served.push(replica);
            next = 1 - next;
          }
          return fetch(`http://127.0.0.1:${replicas[replica]}${url.pathname}${url.search}`, {
            headers: request.headers,
          });
        },
      });
      spawn("services/workspace/src/main.ts", {
        WORKSPACE_PORT: String(workspacePort),
        PORT: String(gatewayPort),
      });
      for (const port of replicas) spawn("services/client-api/src/main.ts", { PORT: String(port) });
      spawn("gateway/src/main.ts", {
        PORT: String(gatewayPort),
        CLIENT_API_URL: `http://127.0.0.1:${balancer.port}`,
      });
      gateway = `http://127.0.0.1:${gatewayPort}`;
      workspace = `http://127.0.0.1:${workspacePort}/internal/v1`;
      for (const port of [workspacePort, ...replicas]) {
        await waitForReady(`http://127.0.0.1:${port}/health/ready`, START_BUDGET_MS);
      }
      await waitForReady(`${gateway}/health/ready`, START_BUDGET_MS);
    },
    startBudget(1, 60_000),
  );

  afterAll(async () => {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(children.map((child) => child.exited));
    balancer?.stop(true);
    await database?.close();
    if (natsUrl) {
      const nc = await connect({ servers: natsUrl });
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
      await nc.close();
    }
  });

  // biome-ignore lint/suspicious/noExplicitAny: answers are read loosely and asserted on
  const admin = async (method: string, path: string, body?: unknown): Promise<any> => {
    const response = await fetch(workspace + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
    return json;
  };

  /** One GET through the gateway, and which replica answered it. */
  const get = async (path: string, key: string) => {
    const response = await fetch(gateway + path, { headers: { authorization: `Bearer ${key}` } });
    // biome-ignore lint/suspicious/noExplicitAny: answers are read loosely and asserted on
    const body = (await response.json()) as any;
    return { status: response.status, body, replica: served[served.length - 1] };
  };

  /** The same GET through each replica in turn: [through A, through B]. */
  const throughEach = async (path: string, key: string) => {
    const answers = [await get(path, key), await get(path, key)];
    expect(answers.map((answer) => answer.replica).sort()).toEqual([0, 1]);
    return answers;
  };

  test("a change through the workspace shows on the next request through either replica; a revoked key is refused by both", async () => {
    const slug = `org-${suffix}`;
    await admin("POST", "/orgs", { slug, name: "Replicated", newsroom_running: true });
    const key = await admin("POST", `/orgs/${slug}/keys`, {
      environment: "test",
      scopes: ["stories:read", "approvals:read", "feed:read", "webhooks:read"],
      lifetime_days: 30,
    });
    const story = await admin("POST", `/orgs/${slug}/stories`, {
      type: "press_release",
      slug: "replicated",
      title: "Before",
      body: [{ type: "paragraph", text: "Text." }],
    });
    // Both replicas read and cache the answers.
    for (let i = 0; i < 2; i++) {
      for (const answer of await throughEach("/v1/stories", key.secret)) {
        expect(answer.status).toBe(200);
        expect(answer.body.data.map((s: { status: string }) => s.status)).toEqual(["draft"]);
      }
      for (const answer of await throughEach(`/v1/stories/${story.id}`, key.secret)) {
        expect(answer.body.title).toBe("Before");
      }
      for (const answer of await throughEach("/v1/approvals", key.secret)) {
        expect(answer.body.data).toEqual([]);
      }
    }

    await admin("POST", `/stories/${story.id}/versions`, { title: "After", body: [] });
    for (const answer of await throughEach(`/v1/stories/${story.id}`, key.secret)) {
      expect(answer.body.title).toBe("After");
    }

    await admin("POST", `/stories/${story.id}/transitions`, { action: "submit" });
    for (const answer of await throughEach("/v1/stories", key.secret)) {
      expect(answer.body.data[0].status).toBe("review_required");
    }
    for (const answer of await throughEach("/v1/approvals", key.secret)) {
      expect(answer.body.data.map((s: { id: string }) => s.id)).toEqual([story.id]);
    }

    await admin("PATCH", `/orgs/${slug}`, { newsroom_running: false });
    for (const answer of await throughEach("/v1/stories", key.secret)) {
      expect(answer.body.data).toEqual([]);
    }

    await admin("POST", `/keys/${key.id}/revoke`);
    for (const answer of await throughEach("/v1/stories", key.secret)) {
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe("invalid_api_key");
    }
  }, 60_000);
});

/** What marks the key lookup among the statements sent: one lateral read per hash. */
const KEY_QUERY = "unnest($1::text[]) as wanted(key_hash)";

describe.skipIf(!databaseUrl)("a cached answer on PostgreSQL", () => {
  /** The client API on its own connection, every statement it sends noted in `seen`. */
  async function watchedApi() {
    const f = await clientApiFixture();
    const seen: string[] = [];
    const client = postgres(f.database.url!, {
      max: 2,
      onnotice: () => {},
      debug: (_connection, query) => {
        seen.push(query);
      },
    });
    const db = drizzle(client, { schema }) as unknown as Db;
    const api = createClientApiApp({
      db,
      config: loadConfig({ SERVICE_ENV: "development" }),
      cache: new ReadCache<string>(),
    });
    const handle = edge((request) => api.app.handle(request), { trustedProxies: "" });
    const get = (path: string, key = f.a.key) =>
      handle(
        new Request(`http://localhost${path}`, {
          headers: { authorization: `Bearer ${key}` },
        }),
      );
    const close = async () => {
      await api.keyUsage.stop();
      await client.end();
      await f.close();
    };
    return { f, seen, get, close };
  }

  test("costs exactly one query: the key with its organization's version", async () => {
    const { f, seen, get, close } = await watchedApi();
    try {
      for (const path of [
        "/v1/stories",
        `/v1/stories/${f.a.decided}`,
        "/v1/approvals",
        "/v1/feed.json",
        "/v1/webhook_endpoints",
      ]) {
        const first = await get(path);
        expect(first.status, path).toBe(200);
        const body = await first.text();
        seen.length = 0;
        const again = await get(path);
        expect(await again.text(), path).toBe(body);
        expect(seen.length, path).toBe(1);
        expect(seen[0], path).toContain(KEY_QUERY);
        expect(seen[0], path).toContain('"organization_data_versions"."data_version"');
      }
    } finally {
      await close();
    }
  });

  test("the key query reads each hash by the unique index, whatever the planner thinks of the table", async () => {
    const { f, seen, get, close } = await watchedApi();
    try {
      expect((await get("/v1/stories")).status).toBe(200);
      const statement = seen.find((query) => query.includes(KEY_QUERY))!;
      expect(statement).toBeDefined();
      const sql = postgres(f.database.url!, { max: 1, onnotice: () => {} });
      try {
        // A thousand keys more: enough pages that reading the whole table would be the cost of
        // comparing every row with every hash.
        await sql`
          insert into api_keys (id, organization_id, environment, key_hash, prefix, last_four, scopes, expires_at)
          select gen_random_uuid(), ${f.a.id}, 'test', md5(i::text) || md5((-i)::text), 'armk_test_',
            'abcd', '["stories:read"]'::jsonb, now() + interval '30 days'
          from generate_series(1, 1000) as i`;
        await sql`analyze api_keys`;
        await sql`analyze organizations`;
        const hashes = (await sql`select key_hash from api_keys`).map((row) => row.key_hash);
        // Its parameters: the hashes (hex digests: safe in an array literal), and the one row
        // each reads.
        const plan = await genericPlan(
          f.database.url!,
          statement,
          [`{${hashes.slice(0, 5).join(",")}}`, 1],
          ["text[]", "bigint"],
        );
        const keyScans = planNodes(plan).filter((node) => node["Relation Name"] === "api_keys");
        expect(keyScans.map((node) => node["Index Name"])).toContain("api_keys_key_hash_unique");
        expect(keyScans.map((node) => node["Node Type"])).not.toContain("Seq Scan");
      } finally {
        await sql.end();
      }
    } finally {
      await close();
    }
  });

  test("requests arriving together share one key query, each answered by its own key's row", async () => {
    const { f, seen, get, close } = await watchedApi();
    try {
      const bodyOf = async (key: string) => {
        const answer = await get("/v1/stories", key);
        expect(answer.status).toBe(200);
        return answer.text();
      };
      const [bodyA, bodyB] = [await bodyOf(f.a.key), await bodyOf(f.b.key)];
      expect(bodyA).not.toBe(bodyB);
      const keys = [
        f.a.key,
        f.b.key,
        f.keys.revoked,
        f.a.key,
        f.keys.expired,
        f.b.key,
        f.keys.unknown,
        f.a.key,
      ];
      seen.length = 0;
      const answers = await Promise.all(keys.map((key) => get("/v1/stories", key)));
      expect(seen.filter((query) => query.includes(KEY_QUERY))).toHaveLength(1);
      const expected = [bodyA, bodyB, 401, bodyA, 401, bodyB, 401, bodyA];
      for (const [i, answer] of answers.entries()) {
        const want = expected[i]!;
        if (want === 401) {
          expect(answer.status, `request ${i}`).toBe(401);
          expect((await answer.json()).error.code).toBe("invalid_api_key");
        } else {
          expect(answer.status, `request ${i}`).toBe(200);
          expect(await answer.text(), `request ${i}`).toBe(want as string);
        }
      }
    } finally {
      await close();
    }
  });
});
