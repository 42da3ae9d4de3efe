/**
 * Webhook dispatch: 1,000 story events fanned out to 10 endpoints (10,000 deliveries) on a
 * receiver in its own process on 127.0.0.1, through the real dispatcher (in-process bus,
 * fan-out, claims, body rebuilt from the story, signing, POST, recording). Measured:
 *
 * - burst: all 1,000 events at once: deliveries per second until the last one arrived;
 * - paced: the events at 200 a second (2,000 deliveries a second offered): event-to-delivery
 *   latency (publish to arrival at the receiver) p50/p99;
 * - baseline, in the same run: the same 10,000 POSTs (same body size, same headers) sent
 *   straight to the same receiver by a plain loop with the dispatcher's concurrency (64).
 *
 * PostgreSQL (a database of its own) when DATABASE_URL is set, PGlite otherwise.
 * Run: `npx bun bench/webhooks.bench.ts [rounds]` (3 rounds by default, each run bounded to
 * 2 minutes). Writes the `## Webhooks` section of bench/RESULTS.md (other sections are kept).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { MemoryBus } from "@newsroom/shared/bus/memory";
import { loadConfig, secretsKey } from "@newsroom/shared/config";
import { openDatabase } from "@newsroom/shared/db/index";
import { outboxEvents, webhookDeliveries } from "@newsroom/shared/db/schema";
import type { StoryEvent } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { MemoryRateLimitStore } from "@newsroom/shared/rate-limit";
import { testDatabase } from "@newsroom/shared/testing/database";
import { createWebhooksService } from "@newsroom/webhooks/app";
import { eventBody } from "@newsroom/webhooks/delivery/payload";
import { USER_AGENT } from "@newsroom/webhooks/delivery/send";
import { createWebhookEndpoint } from "@newsroom/webhooks/endpoints/service";
import { signedHeaders } from "@newsroom/webhooks/signing/signature";
import { createOrganization } from "@newsroom/workspace/organizations/service";
import { createStory } from "@newsroom/workspace/stories/service";
import { count, eq } from "drizzle-orm";

const EVENTS = 1_000;
const ENDPOINTS = 10;
const DELIVERIES = EVENTS * ENDPOINTS;
/** The dispatcher's default attempts in flight; the baseline loop uses the same. */
const CONCURRENCY = 64;
const PACED_EVENTS_PER_SECOND = 200;
/** No single run may take longer than this. */
const RUN_LIMIT_MS = 120_000;
/** Rounds of baseline, burst and paced runs (the first argument). */
const ROUNDS = Math.max(1, Number(process.argv[2] ?? 3));

interface Extra {
  duplicates: number;
}

const wall = () => performance.timeOrigin + performance.now();

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  seconds: number;
}

function figures(latencies: number[], seconds: number): Figures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    rps: latencies.length / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    seconds,
  };
}

// The receiver, in a process of its own.
const receiverProcess = Bun.spawn(
  [process.execPath, join(import.meta.dir, "webhooks-receiver.ts")],
  {
    stdout: "pipe",
    stderr: "inherit",
  },
);
// Stopped with the bench, also when a run fails or times out.
process.on("exit", () => receiverProcess.kill());
const firstLine = await (async () => {
  const reader = receiverProcess.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += new TextDecoder().decode(chunk.value);
  }
  reader.releaseLock();
  return text.split("\n")[0]!;
})();
const receiver = `http://127.0.0.1:${Number(firstLine)}`;
const receiverCount = async () =>
  ((await (await fetch(`${receiver}/count`)).json()) as { count: number }).count;
const receiverArrivals = async () =>
  (await (await fetch(`${receiver}/arrivals`)).json()) as {
    at: number;
    path: string;
    id: string;
  }[];
const resetReceiver = () => fetch(`${receiver}/reset`, { method: "POST" });

log.setSilent(true);
// A database of its own (dropped at the end); on PostgreSQL, opened again with the pool a
// service process uses (10 connections).
const scratch = await testDatabase();
const database = scratch.url ? await openDatabase({ url: scratch.url }) : scratch;
const { db } = database;
const config = loadConfig({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true", PGLITE_DIR: "memory" });
const bus = new MemoryBus();

// One organization, 10 endpoints, 1,000 stories (each event reads its story at send time).
const org = await createOrganization(db, { slug: `bench-${Date.now()}`, name: "Bench" });
for (let i = 0; i < ENDPOINTS; i++) {
  await createWebhookEndpoint(
    { db, secretsKey: secretsKey(config), allowInsecureTargets: true },
    org.id,
    { url: `${receiver}/hooks/${i}`, events: ["story.published"] },
  );
}
const storyIds: string[] = [];
for (let i = 0; i < EVENTS; i++) {
  const story = await createStory(db, org.id, {
    type: "insight",
    slug: `bench-story-${i}`,
    title: `Bench story ${i}`,
  });
  storyIds.push(story.id);
}

/** 1,000 committed outbox events (as story transitions write them), not yet published. */
async function outboxBatch(): Promise<StoryEvent[]> {
  const createdAt = new Date();
  const rows = storyIds.map((storyId) => ({
    id: newId(),
    organizationId: org.id,
    type: "story.published" as const,
    storyId,
    createdAt,
    publishedAt: createdAt,
  }));
  for (let i = 0; i < rows.length; i += 500) {
    await db.insert(outboxEvents).values(rows.slice(i, i + 500));
  }
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    created_at: createdAt.toISOString(),
    data: { organization_id: org.id, story_id: row.storyId },
  }));
}

async function waitForArrivals(expected: number, startedAt: number): Promise<void> {
  for (;;) {
    const arrived = await receiverCount();
    if (arrived >= expected) return;
    if (wall() - startedAt > RUN_LIMIT_MS) {
      throw new Error(`timed out: ${arrived} of ${expected} deliveries arrived`);
    }
    await Bun.sleep(25);
  }
}

/** Waits until no delivery is pending: every attempt is recorded too. */
async function waitForRecords(startedAt: number): Promise<void> {
  for (;;) {
    const [pending] = await db
      .select({ n: count() })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.status, "pending"));
    if (pending?.n === 0) return;
    if (wall() - startedAt > RUN_LIMIT_MS) throw new Error(`timed out: ${pending?.n} pending`);
    await Bun.sleep(25);
  }
}

/**
 * Publishes the events (all at once, or `perSecond`), waits for every delivery at the
 * receiver, and measures from each event's publication to its arrival.
 */
async function dispatch(perSecond: number | null): Promise<Figures & Extra> {
  const events = await outboxBatch();
  await resetReceiver();
  const publishedAt = new Map<string, number>();
  const startedAt = wall();
  for (const [index, event] of events.entries()) {
    if (perSecond) {
      const due = startedAt + (index * 1000) / perSecond;
      const wait = due - wall();
      if (wait > 1) await Bun.sleep(wait);
    }
    publishedAt.set(event.id, wall());
    await bus.publish(event);
  }
  await waitForArrivals(DELIVERIES, startedAt);
  await waitForRecords(startedAt);
  const arrivals = await receiverArrivals();
  const seen = new Set(arrivals.map((arrival) => `${arrival.path} ${arrival.id}`));
  const latencies = arrivals.map((arrival) => arrival.at - publishedAt.get(arrival.id)!);
  const last = Math.max(...arrivals.map((arrival) => arrival.at));
  return {
    ...figures(latencies, (last - startedAt) / 1000),
    duplicates: arrivals.length - seen.size,
  };
}

/** The same 10,000 POSTs straight to the receiver, `CONCURRENCY` at a time. */
async function baseline(): Promise<Figures> {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const body = await eventBody(db, {
    organizationId: org.id,
    eventId: newId(),
    eventType: "story.published",
    storyId: storyIds[0]!,
    eventCreatedAt: new Date(),
  });
  await resetReceiver();
  const latencies: number[] = [];
  let next = 0;
  const startedAt = wall();
  const worker = async () => {
    while (next < DELIVERIES) {
      const index = next++;
      const eventId = newId();
      const start = wall();
      const response = await fetch(`${receiver}/hooks/${index % ENDPOINTS}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          ...signedHeaders(secret, eventId, body),
        },
        body,
        redirect: "manual",
      });
      await response.arrayBuffer();
      latencies.push(wall() - start);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (wall() - startedAt) / 1000;
  if ((await receiverCount()) !== DELIVERIES) throw new Error("the baseline lost requests");
  return figures(latencies, seconds);
}

const service = await createWebhooksService(
  {
    config,
    database,
    bus,
    rateLimits: new MemoryRateLimitStore(),
    close: async () => {},
  },
  { concurrency: CONCURRENCY },
);

// A warm-up (JIT, connections, query plans), then rounds of the three runs, interleaved so the
// baseline sees the same machine as the dispatcher; the median round of each is reported.
await baseline();
await dispatch(null);
const rounds: { base: Figures; burst: Figures & Extra; paced: Figures & Extra }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  rounds.push({
    base: await baseline(),
    burst: await dispatch(null),
    paced: await dispatch(PACED_EVENTS_PER_SECOND),
  });
}
const [delivered] = await db
  .select({ n: count() })
  .from(webhookDeliveries)
  .where(eq(webhookDeliveries.status, "delivered"));

await service.stop();
if (database !== scratch) await database.close();
await scratch.close();
receiverProcess.kill("SIGTERM");
await receiverProcess.exited;

const expectedRows = (2 * ROUNDS + 1) * DELIVERIES;
if (delivered?.n !== expectedRows) {
  throw new Error(`expected ${expectedRows} delivered rows, found ${delivered?.n}`);
}

/** The median of the runs by `by`, and the range of that figure. */
function median<T extends Figures>(runs: T[], by: (run: T) => number) {
  const sorted = [...runs].sort((a, b) => by(a) - by(b));
  return {
    run: sorted[Math.floor(sorted.length / 2)]!,
    low: by(sorted[0]!),
    high: by(sorted[sorted.length - 1]!),
  };
}
const base = median(
  rounds.map((round) => round.base),
  (run) => run.rps,
);
const burst = median(
  rounds.map((round) => round.burst),
  (run) => run.rps,
);
const paced = median(
  rounds.map((round) => round.paced),
  (run) => run.p99,
);
const duplicates = rounds.reduce(
  (sum, round) => sum + round.burst.duplicates + round.paced.duplicates,
  0,
);

const ms = (value: number) => value.toFixed(1);
const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}x`;
const row = (name: string, run: Figures) =>
  `| ${name} | ${run.rps.toFixed(0)} | ${ms(run.p50)} | ${ms(run.p99)} | ${run.seconds.toFixed(2)} |`;
const date = new Date().toISOString().slice(0, 10);
const backend = database.kind === "postgres" ? "PostgreSQL" : "PGlite";
const heading = `### On ${backend}`;
const intro = `## Webhooks

${EVENTS} events x ${ENDPOINTS} endpoints = ${DELIVERIES} deliveries through the dispatcher (in-process bus,
fan-out, claims, bodies rebuilt from the stories, signing, POST, recording) to a receiver in its
own process on 127.0.0.1, ${CONCURRENCY} requests in flight. Latency: event published to request
arrived (dispatcher), request round trip (baseline: the same POSTs sent straight to the receiver
by a plain loop, ${CONCURRENCY} at a time, in the same run). Median of the rounds (burst and
baseline by deliveries/s, paced by p99) after a warm-up. Run: \`npx bun bench/webhooks.bench.ts\`
(PostgreSQL when DATABASE_URL is set, else PGlite).
`;
const section = `${heading}

${date}; ${database.kind === "postgres" ? "PostgreSQL, pool of 10" : "PGlite in memory"}; ${navigator.hardwareConcurrency} cores shared with whatever else ran (load average ${loadavg()[0]!.toFixed(1)} at the end); ${ROUNDS} rounds.

| run | deliveries/s | p50 ms | p99 ms | seconds |
|---|---|---|---|---|
${row(`baseline: the same POSTs by a plain loop, ${CONCURRENCY} at a time`, base.run)}
${row("dispatcher, burst: 1,000 events at once", burst.run)}
${row(`dispatcher, paced: ${PACED_EVENTS_PER_SECOND} events/s (${PACED_EVENTS_PER_SECOND * ENDPOINTS} deliveries/s offered)`, paced.run)}

- Throughput (burst): ${burst.run.rps.toFixed(0)} deliveries/s, ${ratio(burst.run.rps, base.run.rps)} the baseline's requests/s; rounds ${burst.low.toFixed(0)}-${burst.high.toFixed(0)}. Target at least 2,000: ${burst.run.rps >= 2000 ? "met" : "not met"}.
- Latency at ${PACED_EVENTS_PER_SECOND * ENDPOINTS} deliveries/s (paced): p50 ${ms(paced.run.p50)} ms (${ratio(paced.run.p50, base.run.p50)} the baseline's), p99 ${ms(paced.run.p99)} ms (${ratio(paced.run.p99, base.run.p99)}); p99 over the rounds ${ms(paced.low)}-${ms(paced.high)} ms. Target p99 under 500 ms: ${paced.run.p99 < 500 ? "met" : "not met"}.
- The burst's latencies are its queue (the last of 10,000 deliveries waits for those before it), against the baseline p50 ${ratio(burst.run.p50, base.run.p50)}, p99 ${ratio(burst.run.p99, base.run.p99)}.
- Duplicates seen by the receiver: ${duplicates}.
`;

/**
 * bench/RESULTS.md keeps every other section as it is; in `## Webhooks` the intro is rewritten
 * and this backend's subsection replaced (the other backend's stays).
 */
function updateResults(path: string): void {
  const existing = existsSync(path) ? readFileSync(path, "utf8") : "# Benchmarks\n";
  const start = existing.search(/^## Webhooks[ \t]*$/m);
  const afterStart = start === -1 ? -1 : existing.slice(start + 1).search(/^## /m);
  const end = start === -1 || afterStart === -1 ? existing.length : start + 1 + afterStart;
  const before = start === -1 ? `${existing.replace(/\s*$/, "")}\n\n` : existing.slice(0, start);
  const after = start === -1 ? "" : existing.slice(end);
  const current = start === -1 ? "" : existing.slice(start, end);
  const subsections = new Map<string, string>();
  for (const part of current.split(/^(?=### )/m).slice(1)) {
    subsections.set(part.split("\n")[0]!.trim(), part.trim());
  }
  subsections.set(heading, section.trim());
  const body = [...subsections.keys()]
    .sort()
    .map((key) => subsections.get(key)!)
    .join("\n\n");
  const webhooks = `${intro}\n${body}\n`;
  writeFileSync(path, `${before}${webhooks}${after ? `\n${after}` : ""}`);
}

updateResults(join(import.meta.dir, "RESULTS.md"));
console.log(section);
process.exit(0);
