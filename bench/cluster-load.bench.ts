/**
 * Mixed traffic through the six processes on PostgreSQL, JetStream and Redis: public reads,
 * client API lists, form posts and story transitions that fire webhooks to a receiver on
 * 127.0.0.1. Reports throughput and p50/p99 per route, errors (429s of the limits are
 * intended and counted apart), and each process's memory at the start and the end.
 * Run: `DATABASE_URL=... NATS_URL=... REDIS_URL=... bun bench/cluster-load.bench.ts [seconds]`
 * (default 120). Traffic goes to 127.0.0.1 only and stops by itself.
 */
import { readFileSync } from "node:fs";
import { log } from "@newsroom/shared/log";
import { testDatabase } from "@newsroom/shared/testing/database";
import { freePort } from "@newsroom/shared/testing/ports";
import startSesEmulator from "aws-ses-v2-local";
import { startCluster, waitForReady } from "../scripts/cluster.ts";
import { type LoadResult, runLoad } from "./support/load.ts";

const SECONDS = Number(process.argv[2] ?? 120);
for (const name of ["DATABASE_URL", "NATS_URL", "REDIS_URL"]) {
  if (!process.env[name]) throw new Error(`${name} is required`);
}
log.setSilent(true);

const ADMIN = "cluster-bench-admin-token";
const suffix = Math.random().toString(36).slice(2, 8);
const database = await testDatabase({ backend: "postgres" });
const sesPort = await freePort();
const ses = await startSesEmulator({ host: "127.0.0.1", port: sesPort });
let webhooksReceived = 0;
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => {
    webhooksReceived++;
    return new Response(null, { status: 204 });
  },
});
const ports = {
  gateway: await freePort(),
  publicRead: await freePort(),
  forms: await freePort(),
  clientApi: await freePort(),
  webhooks: await freePort(),
  workspace: await freePort(),
};
const cluster = startCluster(
  ports,
  {
    PATH: process.env.PATH,
    DATABASE_URL: database.url,
    NATS_URL: process.env.NATS_URL,
    NATS_STREAM: `BENCH_${suffix.toUpperCase()}`,
    NATS_SUBJECT_PREFIX: `bench${suffix}.`,
    REDIS_URL: process.env.REDIS_URL,
    RATE_LIMIT_PREFIX: `bench:${suffix}:`,
    // Every request comes from 127.0.0.1: public reads are measured, not their limit.
    PUBLIC_RATE_LIMIT_PER_MINUTE: "1000000000",
    ADMIN_TOKEN: ADMIN,
    HOUSE_ORG: "bench-house",
    SES_ENDPOINT: `http://127.0.0.1:${sesPort}`,
    FORMS_FROM_EMAIL: "newsroom@example.com",
    FORMS_TEAM_EMAIL: "team@example.com",
    WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
    LOG_LEVEL: "error",
  },
  { output: "ignore" },
);
const base = `http://127.0.0.1:${ports.gateway}`;
const workspace = `http://127.0.0.1:${ports.workspace}/internal/v1`;
await waitForReady(`http://127.0.0.1:${ports.workspace}/health/ready`, 60_000);
await waitForReady(`${base}/health/ready`, 60_000);

async function admin(method: string, path: string, body?: unknown) {
  const response = await fetch(workspace + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

// A house newsroom with published stories, a key and a webhook endpoint.
await admin("POST", "/orgs", { slug: "bench-house", name: "Bench", newsroom_running: true });
const key = (
  await admin("POST", "/orgs/bench-house/keys", {
    environment: "test",
    scopes: ["stories:read"],
    lifetime_days: 30,
  })
).secret;
await admin("POST", "/orgs/bench-house/webhook_endpoints", {
  url: `http://127.0.0.1:${receiver.port}/hooks`,
  events: ["story.submitted", "story.approved", "story.published"],
});
let created = 0;
async function publishOne(): Promise<number> {
  const story = await admin("POST", "/orgs/bench-house/stories", {
    type: "insight",
    slug: `bench-${created++}-${suffix}`,
    title: `Bench story ${created}`,
    body: [{ type: "paragraph", text: "Load." }],
    topics: ["bench"],
  });
  for (const action of ["submit", "approve", "publish"]) {
    await admin("POST", `/stories/${story.id}/transitions`, { action, actor_role: "approver" });
  }
  return 200;
}
for (let i = 0; i < 30; i++) await publishOne();

/** Resident memory of each process, in MiB, from /proc. */
function memory(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, child] of cluster.processes) {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
    out[name] = Math.round(rss / 1024);
  }
  return out;
}

const send = (url: string, init?: RequestInit) => async () => {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return response.status;
};
const contact = () =>
  JSON.stringify({
    intent: "press",
    audience: "organization",
    name: "Bench",
    email: "bench@example.com",
    message: "A message from the load benchmark.",
    consent: true,
    submission_id: crypto.randomUUID(),
    started_at: Date.now() - 10_000,
  });
/** Route, request, loops, pause between a loop's requests (ms), answers that are not errors. */
const routes: [string, () => Promise<number>, number, number, number[]][] = [
  ["GET /v1/public/newsroom", send(`${base}/v1/public/newsroom`), 12, 0, [200]],
  [
    "GET /v1/public/newsroom/{slug}",
    send(`${base}/v1/public/newsroom/bench-0-${suffix}`),
    8,
    0,
    [200],
  ],
  // Paced near the limit (300 a minute per key): the 429s past it are intended.
  [
    "GET /v1/stories",
    send(`${base}/v1/stories?limit=25`, { headers: { authorization: `Bearer ${key}` } }),
    2,
    300,
    [200, 429],
  ],
  [
    "POST /v1/public/contact",
    async () => {
      const response = await fetch(`${base}/v1/public/contact`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: contact(),
      });
      await response.arrayBuffer();
      return response.status;
    },
    1,
    2_000,
    [202, 429],
  ],
  ["workspace: create, submit, approve, publish", publishOne, 1, 0, [200]],
];
// Memory is compared from a steady state: sampled once caches, pools and compiled code have
// settled, and at the end.
const WARM_SECONDS = Math.min(20, Math.floor(SECONDS / 4));
let before: Record<string, number> = {};
const warm = setTimeout(() => {
  before = memory();
}, WARM_SECONDS * 1_000);
const results = await Promise.all(
  routes.map(([, send, concurrency, pauseMs, expected]) =>
    runLoad(send, { seconds: SECONDS, concurrency, expected, pauseMs }),
  ),
);
clearTimeout(warm);
await Bun.sleep(3_000);
const after = memory();

const row = (name: string, r: LoadResult, expected: number[]) =>
  `| ${name} | ${r.rps.toFixed(1)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} | ${expected.includes(429) ? (r.statuses[429] ?? 0) : "-"} |`;
console.log(
  `\n${new Date().toISOString().slice(0, 10)}, ${SECONDS} s of mixed traffic through the cluster (PostgreSQL, JetStream, Redis), 2 cores:\n`,
);
console.log("| route | requests/s | p50 ms | p99 ms | errors | intended 429 |");
console.log("|---|---|---|---|---|---|");
for (const [i, [name, , , , expected]] of routes.entries()) {
  console.log(row(name, results[i]!, expected));
}
console.log(`\nWebhooks received: ${webhooksReceived}.\n`);
console.log(`| process | RSS after ${WARM_SECONDS} s MiB | RSS at end MiB | growth |`);
console.log("|---|---|---|---|");
for (const name of Object.keys(before)) {
  const growth = ((after[name]! - before[name]!) / before[name]!) * 100;
  console.log(`| ${name} | ${before[name]} | ${after[name]} | ${growth.toFixed(0)}% |`);
}

await cluster.stop();
receiver.stop(true);
ses.close();
await database.close();
process.exit(0);
