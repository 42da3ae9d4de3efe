/**
 * Webhooks end to end in the distributed mode (the six processes on PostgreSQL, JetStream and
 * Redis), measured from outside: story transitions through the workspace internal API, to 10
 * endpoints on one receiver in its own process on 127.0.0.1, the per-endpoint cap at its default.
 *
 * - burst: 300 `submit` transitions, 16 at a time, from the first transition sent to the
 *   3,000th delivery at the receiver;
 * - baseline, in the same run, in alternating order with the burst: 3,000 signed POSTs of a body
 *   of the same size straight to the same receiver by a plain loop, 64 at a time;
 * - paced: 200 transitions a second (2,000 deliveries a second): latency from sending the
 *   transition to the receiver's request, p50 and p99; and the same at 50 a second (500
 *   deliveries a second), within what the machine delivers, so that its latency is not a queue's.
 *
 * Where the time goes: for each burst, the stages each event went through, read afterwards from
 * the rows the services wrote (the outbox row, its publication, its fan-out record, the first
 * attempt opened) beside the receiver's clock; the transactions per delivery
 * (`pg_stat_database`); and the CPU each process spent per delivery.
 *
 * Run: `DATABASE_URL=... NATS_URL=... REDIS_URL=... bun bench/webhooks-e2e.bench.ts`
 * (BENCH_ROUNDS rounds, 5 by default; BENCH_ANALYZE=1 analyzes the database after the warm-up,
 * so that the services' statements are planned from statistics taken while nothing was pending,
 * as autovacuum may take them in production). Every run is bounded and everything listens on
 * 127.0.0.1.
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { newId } from "@newsroom/shared/ids";
import { USER_AGENT } from "@newsroom/webhooks/delivery/send";
import { signedHeaders } from "@newsroom/webhooks/signing/signature";
import postgres from "postgres";
import {
  BENCH_ROUNDS,
  cleanup,
  cpuSeconds,
  cpuSecondsOfCommand,
  loadLine,
  median,
  onCleanup,
  spawnProcess,
} from "./support/external.ts";
import { startDistributed } from "./support/servers.ts";
import { workspaceCall } from "./support/workspace.ts";

const ENDPOINTS = 10;
const TRANSITIONS = 300;
const DELIVERIES = TRANSITIONS * ENDPOINTS;
/** Transitions in flight at once in the burst. */
const TRANSITION_CONCURRENCY = 16;
/** The baseline's requests in flight: the dispatcher's request slots. */
const BASELINE_CONCURRENCY = 64;
const PACED_PER_SECOND = 200;
const PACED_TRANSITIONS = 400;
/** The paced run within the machine's capacity: its latency is the path's, not a backlog's. */
const GENTLE_PER_SECOND = 50;
const GENTLE_TRANSITIONS = 200;
/** BENCH_ANALYZE=1: the database is analyzed once after the warm-up, all quiet. */
const ANALYZE_AFTER_WARM_UP = process.env.BENCH_ANALYZE === "1";
/** No single run may take longer than this. */
const RUN_LIMIT_MS = 60_000;

const wall = () => performance.timeOrigin + performance.now();

/** Adds each process's CPU between two readings, in µs per delivery, to `into`. */
function addCpuPerDelivery(
  into: Record<string, number[]>,
  before: Record<string, number>,
  after: Record<string, number>,
  deliveries: number,
): void {
  for (const [name, seconds] of Object.entries(after)) {
    // A backend opened meanwhile counts from zero.
    const spent = seconds - (before[name] ?? 0);
    into[name] = [...(into[name] ?? []), (spent * 1e6) / deliveries];
  }
}

/** CPU µs per delivery by process, medians over the rounds. */
function cpuLine(perDelivery: Record<string, number[]>): string {
  return Object.entries(perDelivery)
    .filter(([name, values]) => !name.startsWith("postgres for") || median(values) >= 0.5)
    .map(([name, values]) => `${name} ${median(values).toFixed(0)}`)
    .join(", ");
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

interface Arrival {
  at: number;
  path: string;
  id: string;
}

async function startReceiver(): Promise<{ url: string; pid: number }> {
  const child = spawnProcess(
    [process.execPath, join(import.meta.dir, "webhooks-receiver.ts")],
    { PATH: process.env.PATH },
    "pipe",
  );
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error("the receiver stopped before telling its port");
    text += new TextDecoder().decode(chunk.value);
  }
  reader.releaseLock();
  return { url: `http://127.0.0.1:${Number(text.split("\n")[0])}`, pid: child.pid };
}

try {
  const receiver = await startReceiver();
  const receiverCount = async () =>
    ((await (await fetch(`${receiver.url}/count`)).json()) as { count: number }).count;
  const receiverArrivals = async () =>
    (await (await fetch(`${receiver.url}/arrivals`)).json()) as Arrival[];
  const resetReceiver = () => fetch(`${receiver.url}/reset`, { method: "POST" });

  const cluster = await startDistributed({ WEBHOOK_ALLOW_INSECURE_TARGETS: "true" });
  const sql = postgres(cluster.env.DATABASE_URL!, { max: 2, onnotice: () => {} });
  onCleanup(() => sql.end());
  const api = cluster.workspaceApi;
  const org = "bench-hooks";
  await workspaceCall(api, "POST", "/orgs", { slug: org, name: "Bench hooks" });
  for (let i = 0; i < ENDPOINTS; i++) {
    await workspaceCall(api, "POST", `/orgs/${org}/webhook_endpoints`, {
      url: `${receiver.url}/hooks/${i}`,
      events: ["story.submitted"],
    });
  }

  let storyCounter = 0;
  // biome-ignore lint/suspicious/noExplicitAny: the internal API's Story record, sent back as is
  let sampleStory: any = null;
  /** Draft stories to submit (created before the clock starts). */
  async function drafts(n: number): Promise<string[]> {
    const ids: string[] = [];
    let next = 0;
    const make = async () => {
      while (next < n) {
        next++;
        const slug = `hook-${storyCounter++}`;
        const story = await workspaceCall(api, "POST", `/orgs/${org}/stories`, {
          type: "insight",
          slug,
          title: `Bench story ${slug}`,
          summary: "A story submitted by the webhooks benchmark.",
          body: [{ type: "paragraph", text: "Load." }],
          topics: ["bench"],
        });
        sampleStory ??= story;
        ids.push(story.id);
      }
    };
    await Promise.all(Array.from({ length: 8 }, make));
    return ids;
  }

  const submit = (storyId: string) =>
    workspaceCall(api, "POST", `/stories/${storyId}/transitions`, {
      action: "submit",
      actor_role: "approver",
    });

  async function waitForArrivals(expected: number, startedAt: number): Promise<void> {
    for (;;) {
      const arrived = await receiverCount();
      if (arrived >= expected) return;
      if (wall() - startedAt > RUN_LIMIT_MS) {
        throw new Error(`timed out: ${arrived} of ${expected} deliveries arrived`);
      }
      await Bun.sleep(5);
    }
  }

  /** Every delivery recorded (none pending): the next run starts from a quiet dispatcher. */
  async function waitForQuiet(): Promise<void> {
    const startedAt = wall();
    for (;;) {
      const [row] = await sql`select count(*)::int as n from webhook_deliveries
        where status = 'pending'`;
      if (row!.n === 0) return;
      if (wall() - startedAt > RUN_LIMIT_MS) throw new Error(`timed out: ${row!.n} pending`);
      await Bun.sleep(50);
    }
  }

  /** Transitions sent (all at `concurrency`, or paced), and each delivery's latency. */
  async function transitions(
    stories: string[],
    pace: { concurrency: number } | { perSecond: number },
  ) {
    await resetReceiver();
    const sentAt = new Map<string, number>();
    const startedAt = wall();
    if ("concurrency" in pace) {
      let next = 0;
      const loop = async () => {
        while (next < stories.length) {
          const id = stories[next++]!;
          sentAt.set(id, wall());
          await submit(id);
        }
      };
      await Promise.all(Array.from({ length: pace.concurrency }, loop));
    } else {
      const calls: Promise<unknown>[] = [];
      for (const [index, id] of stories.entries()) {
        const wait = startedAt + (index * 1000) / pace.perSecond - wall();
        if (wait > 1) await Bun.sleep(wait);
        sentAt.set(id, wall());
        calls.push(submit(id));
      }
      await Promise.all(calls);
    }
    const expected = stories.length * ENDPOINTS;
    await waitForArrivals(expected, startedAt);
    const arrivals = await receiverArrivals();
    const events = await sql`select id, story_id, created_at, published_at
      from outbox_events where story_id = any(${stories}::uuid[]) and type = 'story.submitted'`;
    const storyOf = new Map(events.map((row) => [row.id as string, row.story_id as string]));
    const latencies = arrivals.map((arrival) => arrival.at - sentAt.get(storyOf.get(arrival.id)!)!);
    const sorted = arrivals.map((arrival) => arrival.at).sort((a, b) => a - b);
    const last = sorted[expected - 1]!;
    const seen = new Set(arrivals.map((arrival) => `${arrival.path} ${arrival.id}`));
    return {
      rate: expected / ((last - startedAt) / 1000),
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      duplicates: arrivals.length - seen.size,
      startedAt,
      sentAt,
      arrivals,
      events,
    };
  }

  /** The same number of signed POSTs, a body of the event's size, straight to the receiver. */
  async function baseline(): Promise<number> {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = JSON.stringify({
      id: newId(),
      object: "event",
      type: "story.submitted",
      created_at: new Date().toISOString(),
      data: { story_id: sampleStory.id, sequence: 1, previous_status: "draft", story: sampleStory },
    });
    await resetReceiver();
    let next = 0;
    const startedAt = wall();
    const loop = async () => {
      while (next < DELIVERIES) {
        const index = next++;
        const response = await fetch(`${receiver.url}/hooks/${index % ENDPOINTS}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            ...signedHeaders(secret, newId(), body),
          },
          body,
          redirect: "manual",
        });
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: BASELINE_CONCURRENCY }, loop));
    const seconds = (wall() - startedAt) / 1000;
    if ((await receiverCount()) !== DELIVERIES) throw new Error("the baseline lost requests");
    return DELIVERIES / seconds;
  }

  /** Where one burst's time went, from the rows each stage wrote. */
  async function stages(run: Awaited<ReturnType<typeof transitions>>) {
    const ids = run.events.map((row) => row.id as string);
    const fanned = await sql`select event_id, fanned_out_at as at from webhook_fanned_out_events
      where event_id = any(${ids}::uuid[])`;
    const attempts = await sql`select d.event_id, min(a.at) as first, max(a.at) as last
      from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.id
      where d.event_id = any(${ids}::uuid[]) group by d.event_id`;
    const [again] = await sql`select count(*)::int as n from webhook_deliveries
      where event_id = any(${ids}::uuid[]) and attempts > 1`;
    const ms = (value: unknown) => new Date(value as string).getTime();
    const fannedAt = new Map(fanned.map((row) => [row.event_id as string, ms(row.at)]));
    const attemptAt = new Map(attempts.map((row) => [row.event_id as string, ms(row.first)]));
    const arrivedAt = new Map<string, number>();
    for (const arrival of run.arrivals) {
      arrivedAt.set(arrival.id, Math.max(arrivedAt.get(arrival.id) ?? 0, arrival.at));
    }
    const perEvent = run.events.map((row) => {
      const sent = run.sentAt.get(row.story_id as string)!;
      return {
        committed: ms(row.created_at) - sent,
        published: ms(row.published_at) - ms(row.created_at),
        fannedOut: fannedAt.get(row.id as string)! - ms(row.published_at),
        claimed: attemptAt.get(row.id as string)! - fannedAt.get(row.id as string)!,
        arrived: arrivedAt.get(row.id as string)! - attemptAt.get(row.id as string)!,
      };
    });
    const lastOf = (values: number[]) => Math.max(...values) - run.startedAt;
    return {
      attemptedTwice: again!.n as number,
      perEvent: Object.fromEntries(
        (["committed", "published", "fannedOut", "claimed", "arrived"] as const).map((stage) => [
          stage,
          median(perEvent.map((event) => event[stage])),
        ]),
      ),
      p99: Object.fromEntries(
        (["committed", "published", "fannedOut", "claimed", "arrived"] as const).map((stage) => [
          stage,
          percentile(
            perEvent.map((event) => event[stage]),
            0.99,
          ),
        ]),
      ),
      done: {
        committed: lastOf(run.events.map((row) => ms(row.created_at))),
        published: lastOf(run.events.map((row) => ms(row.published_at))),
        fannedOut: lastOf([...fannedAt.values()]),
        claimed: lastOf(attempts.map((row) => ms(row.last))),
        arrived: lastOf([...arrivedAt.values()]),
      },
    };
  }

  const transactions = async () => {
    // Sessions report their counts at most once a second.
    await Bun.sleep(1_500);
    const [row] = await sql`select xact_commit::float8 as n from pg_stat_database
      where datname = current_database()`;
    return row!.n as number;
  };
  const processes = { ...cluster.pids, receiver: receiver.pid };
  /**
   * PostgreSQL's CPU on behalf of each process: its backends, found by the TCP connections
   * between them (`ss`), so that the database's share is split by who asked.
   */
  const postgresByProcess = (): Record<string, number> => {
    const lines = Bun.spawnSync(["ss", "-tnpH"]).stdout.toString().split("\n");
    const owner = new Map<string, number>();
    const backends: [string, number][] = [];
    for (const line of lines) {
      const [, , , local, peer, users] = line.trim().split(/\s+/);
      const pid = Number(/pid=(\d+)/.exec(users ?? "")?.[1]);
      if (!local || !peer || !pid) continue;
      if (local.endsWith(":5432")) backends.push([peer, pid]);
      else if (peer.endsWith(":5432")) owner.set(local, pid);
    }
    const nameOf = new Map(Object.entries(cluster.pids).map(([name, pid]) => [pid, name]));
    const spent: Record<string, number> = {};
    for (const [peer, backend] of backends) {
      const name = nameOf.get(owner.get(peer) ?? 0);
      if (name)
        spent[`postgres for ${name}`] = (spent[`postgres for ${name}`] ?? 0) + cpuSeconds(backend);
    }
    return spent;
  };
  const cpuNow = (): Record<string, number> => ({
    ...Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuSeconds(pid)])),
    postgres: cpuSecondsOfCommand("postgres"),
    ...postgresByProcess(),
  });

  // A warm-up of each (JIT, connections, plans), then alternating rounds.
  await transitions(await drafts(TRANSITIONS), { concurrency: TRANSITION_CONCURRENCY });
  await baseline();
  await waitForQuiet();
  // The statistics a quiet moment gives (nothing pending), as autovacuum may take them between
  // two bursts; without, the plans are made from what the planner guesses of new tables.
  if (ANALYZE_AFTER_WARM_UP) await sql`analyze`;
  const loadBefore = loadavg();
  const rounds: {
    baseline: number;
    burst: Awaited<ReturnType<typeof transitions>>;
    stages: Awaited<ReturnType<typeof stages>>;
    paced: Awaited<ReturnType<typeof transitions>>;
    pacedStages: Awaited<ReturnType<typeof stages>>;
    gentle: Awaited<ReturnType<typeof transitions>>;
  }[] = [];
  const cpuPerDelivery: Record<string, number[]> = {};
  const gentleCpuPerDelivery: Record<string, number[]> = {};
  const transactionsPerDelivery: number[] = [];
  for (let round = 0; round < BENCH_ROUNDS; round++) {
    const burstStories = await drafts(TRANSITIONS);
    const pacedStories = await drafts(PACED_TRANSITIONS);
    const gentleStories = await drafts(GENTLE_TRANSITIONS);
    let base = 0;
    if (round % 2 === 0) base = await baseline();
    const xactBefore = await transactions();
    const cpuBefore = cpuNow();
    const burst = await transitions(burstStories, { concurrency: TRANSITION_CONCURRENCY });
    await waitForQuiet();
    const cpuAfter = cpuNow();
    transactionsPerDelivery.push(((await transactions()) - xactBefore) / DELIVERIES);
    addCpuPerDelivery(cpuPerDelivery, cpuBefore, cpuAfter, DELIVERIES);
    if (round % 2 === 1) base = await baseline();
    const paced = await transitions(pacedStories, { perSecond: PACED_PER_SECOND });
    await waitForQuiet();
    const gentleCpuBefore = cpuNow();
    const gentle = await transitions(gentleStories, { perSecond: GENTLE_PER_SECOND });
    await waitForQuiet();
    addCpuPerDelivery(
      gentleCpuPerDelivery,
      gentleCpuBefore,
      cpuNow(),
      GENTLE_TRANSITIONS * ENDPOINTS,
    );
    rounds.push({
      baseline: base,
      burst,
      stages: await stages(burst),
      paced,
      pacedStages: await stages(paced),
      gentle,
    });
    console.error(
      `  round ${round + 1}/${BENCH_ROUNDS}: baseline ${base.toFixed(0)}/s, end to end ${burst.rate.toFixed(0)}/s (${(burst.rate / base).toFixed(3)}), paced p99 ${paced.p99.toFixed(1)} ms (at ${GENTLE_PER_SECOND * ENDPOINTS}/s: ${gentle.p99.toFixed(1)} ms), load ${loadavg()[0]!.toFixed(1)}`,
    );
  }

  const ratios = rounds.map((round) => round.burst.rate / round.baseline);
  const med = (pick: (round: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  const range = (pick: (round: (typeof rounds)[number]) => number, digits = 0) =>
    `${Math.min(...rounds.map(pick)).toFixed(digits)}-${Math.max(...rounds.map(pick)).toFixed(digits)}`;
  const duplicates = rounds.reduce(
    (sum, round) => sum + round.burst.duplicates + round.paced.duplicates + round.gentle.duplicates,
    0,
  );
  const stage = (name: keyof (typeof rounds)[number]["stages"]["done"]) =>
    `${med((round) => round.stages.perEvent[name]!).toFixed(1)} | ${med((round) => round.stages.done[name]).toFixed(0)} | ${med((round) => round.pacedStages.perEvent[name]!).toFixed(1)} | ${med((round) => round.pacedStages.p99[name]!).toFixed(1)}`;
  console.log(`### Distributed, end to end: ${TRANSITIONS} transitions to ${ENDPOINTS} endpoints

| run | deliveries/s (median) | rounds | p50 ms | p99 ms |
|---|---|---|---|---|
| baseline: signed POSTs by a plain loop, ${BASELINE_CONCURRENCY} at a time | ${med((round) => round.baseline).toFixed(0)} | ${range((round) => round.baseline)} | - | - |
| burst: ${TRANSITIONS} \`submit\` transitions, ${TRANSITION_CONCURRENCY} at a time, to the ${DELIVERIES}th delivery | ${med((round) => round.burst.rate).toFixed(0)} | ${range((round) => round.burst.rate)} | ${med((round) => round.burst.p50).toFixed(1)} | ${med((round) => round.burst.p99).toFixed(1)} |
| paced: ${PACED_PER_SECOND} transitions/s (${PACED_PER_SECOND * ENDPOINTS} deliveries/s), transition to request | ${med((round) => round.paced.rate).toFixed(0)} | ${range((round) => round.paced.rate)} | ${med((round) => round.paced.p50).toFixed(1)} | ${med((round) => round.paced.p99).toFixed(1)} |
| paced: ${GENTLE_PER_SECOND} transitions/s (${GENTLE_PER_SECOND * ENDPOINTS} deliveries/s), transition to request | ${med((round) => round.gentle.rate).toFixed(0)} | ${range((round) => round.gentle.rate)} | ${med((round) => round.gentle.p50).toFixed(1)} | ${med((round) => round.gentle.p99).toFixed(1)} |

- End to end: **${median(ratios).toFixed(3)}** of the plain loop (median of the per-round ratios; rounds ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}). Target at least 0.25: ${median(ratios) >= 0.25 ? "met" : "not met"}.
- Paced p99 from the transition to the receiver's request: **${med((round) => round.paced.p99).toFixed(1)} ms** (rounds ${range((round) => round.paced.p99, 1)}). Target under 100 ms: ${med((round) => round.paced.p99) < 100 ? "met" : "not met"}.
- Duplicates seen by the receiver: ${duplicates} (bursts ${rounds.map((round) => round.burst.duplicates).join(", ")}; deliveries attempted more than once in the bursts: ${rounds.map((round) => round.stages.attemptedTwice).join(", ")}). Load average ${loadLine(loadBefore)} before, ${loadLine()} after; ${BENCH_ROUNDS} rounds, ${new Date().toISOString()}.

Where the time goes (medians over the rounds): per event, the time from the previous stage
(median over the burst's events); when the burst's last event passed each stage, from the
first transition sent; and in the paced run, each stage's median and p99 over its events.

| stage | burst: per event, ms | burst: last event, ms | paced: p50 ms | paced: p99 ms |
|---|---|---|---|---|
| transition sent -> outbox row written (the story's transaction) | ${stage("committed")} |
| -> published to JetStream (outbox relay) | ${stage("published")} |
| -> fanned out (consumer, deliveries inserted) | ${stage("fannedOut")} |
| -> first attempt opened (claimed) | ${stage("claimed")} |
| -> last endpoint's request at the receiver | ${stage("arrived")} |

Transactions per delivery (burst, every process, \`pg_stat_database\`): ${median(transactionsPerDelivery).toFixed(2)}.
CPU µs per delivery (burst; "postgres" is every session of the machine, "postgres for" a process its own connections): ${cpuLine(cpuPerDelivery)}.
The same at ${GENTLE_PER_SECOND * ENDPOINTS} deliveries a second (paced, within what the machine delivers): ${cpuLine(gentleCpuPerDelivery)}.`);
} finally {
  await cleanup();
}
process.exit(0);
