import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { waitForReady } from "@newsroom/shared/testing/servers";
import { type SesEmulator, startSesEmulator } from "@newsroom/shared/testing/ses-emulator";
import { type TcpProxy, tcpProxy } from "@newsroom/shared/testing/tcp-proxy";
import postgres from "postgres";
import { type Cluster, startCluster } from "../../scripts/cluster.ts";
import { freeClusterPorts, operatorApi } from "../support/cluster.ts";

/**
 * The database unable to serve, under the six processes: refusing connections (`allow_connections`
 * off, backends terminated: SQLSTATE 55000 and 57P01) and unreachable (a TCP proxy in front of it,
 * cut). Every answer during the outage is a 503 with Retry-After (or a kept 200) within a second,
 * and every route answers again within two seconds of the database's return.
 */
const databaseUrl = requireService("DATABASE_URL");
const natsUrl = requireService("NATS_URL");
const redisUrl = requireService("REDIS_URL");
const ready = Boolean(databaseUrl && natsUrl && redisUrl);

const ADMIN_TOKEN = "outage-test-admin-token";
const house = "outage-house";
const origin = "https://outage.example";
/** How long an answer may take while the database cannot serve, and how soon all is back. */
const ANSWER_WITHIN_MS = 1_000;
const BACK_WITHIN_MS = 2_000;

interface Probe {
  name: string;
  call(): Promise<Response>;
  /** An answer the route may give from what it kept, besides a 503. */
  kept?: number;
}

describe.skipIf(!ready)("the database unable to serve", () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let ses: SesEmulator;
  let cluster: Cluster;
  let base = "";
  let internal = "";
  let key = "";
  let probes: Probe[] = [];

  beforeAll(
    async () => {
      database = await testDatabase({ backend: "postgres" });
      ses = await startSesEmulator();
      const real = new URL(database.url!);
      proxy = tcpProxy({ hostname: real.hostname, port: Number(real.port || 5432) });
      const throughProxy = new URL(database.url!);
      throughProxy.hostname = "127.0.0.1";
      throughProxy.port = String(proxy.port);
      const suffix = Math.random().toString(36).slice(2, 8);
      const ports = await freeClusterPorts();
      cluster = startCluster(
        ports,
        {
          PATH: process.env.PATH,
          DATABASE_URL: throughProxy.toString(),
          NATS_URL: natsUrl,
          NATS_STREAM: `OUTAGE_${suffix}`,
          NATS_SUBJECT_PREFIX: `outage${suffix}.`,
          REDIS_URL: redisUrl,
          RATE_LIMIT_PREFIX: `outage${suffix}:`,
          ADMIN_TOKEN,
          HOUSE_ORG: house,
          LOG_LEVEL: "error",
          // Each probe of the forms comes from an address of its own, under the forms' limit.
          TRUSTED_PROXIES: "127.0.0.1/32",
          SES_ENDPOINT: ses.url,
          FORMS_FROM_EMAIL: "newsroom@outage.example",
          FORMS_TEAM_EMAIL: "team@outage.example",
        },
        { output: process.env.OUTAGE_OUTPUT === "inherit" ? "inherit" : "ignore" },
      );
      base = `http://127.0.0.1:${ports.gateway}`;
      internal = `http://127.0.0.1:${ports.workspace}/internal/v1`;
      await waitForReady(`http://127.0.0.1:${ports.workspace}/health/ready`, START_BUDGET_MS);
      await waitForReady(`${base}/health/ready`, START_BUDGET_MS);

      await admin("POST", "/orgs", { slug: house, name: "Outage house", newsroom_running: true });
      await admin("PATCH", `/orgs/${house}`, {
        newsletter_enabled: true,
        newsletter_origins: [origin],
      });
      key = (
        await admin("POST", `/orgs/${house}/keys`, {
          environment: "test",
          scopes: ["stories:read"],
          lifetime_days: 30,
        })
      ).secret;

      const auth = { authorization: `Bearer ${key}` };
      probes = [
        {
          name: "client API list",
          call: () => fetch(`${base}/v1/stories?limit=2`, { headers: auth }),
        },
        {
          name: "client API story",
          call: () => fetch(`${base}/v1/stories/${crypto.randomUUID()}`, { headers: auth }),
        },
        // A filter the answer caches have not seen reaches the database.
        {
          name: "public newsroom",
          call: () =>
            fetch(`${base}/v1/public/newsroom?topic=t${Math.random().toString(36).slice(2, 8)}`),
          kept: 200,
        },
        {
          name: "public site",
          call: () => fetch(`${base}/v1/public/sites/nothing-here`),
          kept: 404,
        },
        {
          name: "organization newsletter",
          call: () =>
            fetch(`${base}/v1/public/newsletter/${house}/subscribe`, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                accept: "application/json",
                origin,
                "x-forwarded-for": `198.51.100.${Math.floor(Math.random() * 250) + 1}`,
              },
              body: JSON.stringify({
                email: `reader-${Math.random().toString(36).slice(2, 8)}@example.org`,
                consent: true,
                submission_id: crypto.randomUUID(),
                started_at: Date.now() - 10_000,
              }),
            }),
        },
        {
          name: "workspace internal API",
          call: () =>
            fetch(`${internal}/orgs/${house}`, {
              headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
            }),
        },
      ];
      const before = await sweep();
      expect(before.filter((answer) => answer.status === 0 || answer.status >= 500)).toEqual([]);
    },
    startBudget(1, 60_000),
  );

  afterAll(async () => {
    await cluster?.stop();
    proxy?.cut();
    await ses?.close();
    await database?.close();
  }, 30_000);

  function admin(method: string, path: string, body?: unknown) {
    return operatorApi(internal, ADMIN_TOKEN)(method, path, body);
  }

  /** Each probe, timed: its status, Retry-After and how long it took. */
  async function sweep() {
    return Promise.all(
      probes.map(async (probe) => {
        const started = performance.now();
        const response = await probe.call().catch((error) => error as Error);
        const ms = performance.now() - started;
        if (response instanceof Error) return { name: probe.name, status: 0, ms, retryAfter: null };
        await response.arrayBuffer();
        return {
          name: probe.name,
          status: response.status,
          ms,
          retryAfter: response.headers.get("retry-after"),
          kept: probe.kept,
        };
      }),
    );
  }

  /** During the outage: every answer a 503 with Retry-After, or a kept answer, within a second. */
  async function expectPromptUnavailable(label: string): Promise<void> {
    const problems: string[] = [];
    let slowest = 0;
    for (let round = 0; round < 3; round++) {
      for (const answer of await sweep()) {
        slowest = Math.max(slowest, answer.ms);
        const fine =
          (answer.status === 503 && answer.retryAfter !== null) ||
          (answer.kept !== undefined && answer.status === answer.kept);
        if (!fine || answer.ms > ANSWER_WITHIN_MS) {
          problems.push(`${answer.name}: ${answer.status} in ${Math.round(answer.ms)} ms`);
        }
      }
    }
    console.log(`${label}: slowest answer during the outage ${Math.round(slowest)} ms`);
    expect(problems).toEqual([]);
  }

  /** After the outage: every probe answers as before it within two seconds. */
  async function expectBackSoon(label: string, since: number): Promise<void> {
    const pending = new Set(probes.map((probe) => probe.name));
    /** Per probe, when its first good answer came back (the sweep's end), from `since`. */
    const backAfter = new Map<string, number>();
    while (pending.size > 0 && performance.now() - since < BACK_WITHIN_MS + 5_000) {
      for (const answer of await sweep()) {
        if (answer.status > 0 && answer.status < 500 && pending.delete(answer.name)) {
          backAfter.set(answer.name, performance.now() - since);
        }
      }
      if (pending.size > 0) await Bun.sleep(50);
    }
    const took = performance.now() - since;
    const each = [...backAfter].map(([name, ms]) => `${name} ${Math.round(ms)}`).join(", ");
    console.log(`${label}: every route back ${Math.round(took)} ms after the database (${each})`);
    expect([...pending]).toEqual([]);
    expect(took).toBeLessThan(BACK_WITHIN_MS);
  }

  test("refusing connections (55000, 57P01): a prompt 503, and back within 2 s", async () => {
    const name = new URL(database.url!).pathname.slice(1);
    const adminDb = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      await adminDb.unsafe(`alter database ${name} allow_connections false`);
      await adminDb.unsafe(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
      );
      await expectPromptUnavailable("refused");
    } finally {
      await adminDb.unsafe(`alter database ${name} allow_connections true`);
      await adminDb.end();
    }
    await expectBackSoon("refused", performance.now());
  }, 60_000);

  test("unreachable (the connection cut): a prompt 503, and back within 2 s", async () => {
    proxy.cut();
    try {
      await expectPromptUnavailable("unreachable");
    } finally {
      proxy.restore();
    }
    await expectBackSoon("unreachable", performance.now());
  }, 60_000);
});
