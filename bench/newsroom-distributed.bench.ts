/**
 * The distributed public reads (six processes on PostgreSQL, JetStream and Redis):
 * 1. `GET /v1/public/newsroom` of the house organization through the gateway, cache warm,
 *    against a bare Bun.serve in its own process answering the same bytes and headers; beside
 *    them, a bare fetch proxy in front of the public-read process (what a hop costs by itself)
 *    and the public-read process directly.
 * 2. The same reads while another organization publishes about 13 stories a second (a publisher
 *    in its own process, through the workspace internal API), against the same reads with the
 *    publisher paused (SIGSTOP), in alternating rounds.
 * Run: `DATABASE_URL=... NATS_URL=... REDIS_URL=... bun bench/newsroom-distributed.bench.ts`.
 */
import { availableParallelism, loadavg } from "node:os";
import {
  BENCH_ROUNDS,
  BENCH_SECONDS,
  captureAnswer,
  cleanup,
  compareMany,
  cpuSeconds,
  cpuSecondsOfCommand,
  ensureWrk,
  loadLine,
  machineBusySeconds,
  median,
  methodLine,
  ROOT,
  reportMany,
  spawnProcess,
  startBare,
  startBareProxy,
  type WrkResult,
  wrk,
  wrkScript,
} from "./support/external.ts";
import { startDistributed } from "./support/servers.ts";
import { ADMIN_TOKEN, seedOrganization } from "./support/workspace.ts";

const PATH = "/v1/public/newsroom";
const HOUSE = "bench-house";
const OTHER = "bench-other";
const RATE = Number(process.env.BENCH_PUBLISH_RATE ?? 13);

await ensureWrk();
try {
  const cluster = await startDistributed();
  await seedOrganization(cluster.workspaceApi, HOUSE, 30);
  await seedOrganization(cluster.workspaceApi, OTHER, 1);
  const answer = await captureAnswer(cluster.gateway + PATH);
  if (answer.status !== 200) throw new Error(`${PATH} answered ${answer.status}`);
  const direct = await captureAnswer(cluster.publicRead + PATH);
  if (direct.status !== 200)
    throw new Error(`${PATH} straight to public-read answered ${direct.status}`);
  const bare = await startBare(answer);
  // What a hop costs by itself: a bare fetch proxy in front of the same public-read process.
  const bareProxy = await startBareProxy(cluster.publicRead);
  const warm = await compareMany(
    [
      ["bare Bun.serve, same bytes and headers", bare.url + PATH],
      ["gateway, public-read, PostgreSQL", cluster.gateway + PATH],
      ["bare Bun proxy (fetch pass-through) in front of public-read", bareProxy.url + PATH],
      ["public-read process directly (no hop)", cluster.publicRead + PATH],
    ],
    { label: "warm" },
  );
  const sections = [
    reportMany(`Distributed, GET ${PATH} through the gateway, warm (${answer.bytes} bytes)`, warm),
  ];

  const publisher = spawnProcess(
    [process.execPath, `${ROOT}bench/support/publisher.ts`],
    {
      PATH: process.env.PATH,
      WORKSPACE_API: cluster.workspaceApi,
      ADMIN_TOKEN,
      PUBLISH_ORG: OTHER,
      PUBLISH_RATE: String(RATE),
    },
    "pipe",
  );
  publisher.kill("SIGSTOP");
  const script = wrkScript();
  const loadBefore = loadavg();
  const runs: { quiet: WrkResult[]; publishing: WrkResult[] } = { quiet: [], publishing: [] };
  // Where the CPU goes in each phase: is a loss the read path doing more work (cache drops),
  // or the same work with less of the two cores left to it?
  const readPids = [cluster.pids.gateway!, cluster.pids["public-read"]!];
  const writePids = [
    ...Object.entries(cluster.pids)
      .filter(([name]) => name !== "gateway" && name !== "public-read")
      .map(([, pid]) => pid),
    publisher.pid,
  ];
  const sum = (pids: number[]) => pids.reduce((n, pid) => n + cpuSeconds(pid), 0);
  // The publishing side only: the gateway's and public-read's CPU is the reads'.
  const named = Object.fromEntries(
    Object.entries({ ...cluster.pids, publisher: publisher.pid }).filter(
      ([name]) => name !== "gateway" && name !== "public-read",
    ),
  );
  const byProcess = () =>
    Object.fromEntries(Object.entries(named).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const cpuNow = () => ({
    processes: byProcess(),
    read: sum(readPids),
    write: sum(writePids),
    postgres: cpuSecondsOfCommand("postgres"),
    machine: machineBusySeconds(),
    at: performance.now(),
  });
  const cpu = {
    quiet: { read: 0, write: 0, postgres: 0, machine: 0, seconds: 0, requests: 0 },
    publishing: { read: 0, write: 0, postgres: 0, machine: 0, seconds: 0, requests: 0 },
  };
  const publishingCpu: Record<string, number> = {};
  let publishingSeconds = 0;
  for (let round = 0; round < BENCH_ROUNDS; round++) {
    const order =
      round % 2 === 0 ? (["quiet", "publishing"] as const) : (["publishing", "quiet"] as const);
    for (const phase of order) {
      if (phase === "publishing") publisher.kill("SIGCONT");
      // A second for the publishing (and its cache drops) to be under way before the reads.
      if (phase === "publishing") await Bun.sleep(1_000);
      const before = cpuNow();
      const run = await wrk(cluster.gateway + PATH, { seconds: BENCH_SECONDS, script });
      const after = cpuNow();
      runs[phase].push(run);
      const spent = cpu[phase];
      spent.read += after.read - before.read;
      spent.write += after.write - before.write;
      spent.postgres += after.postgres - before.postgres;
      spent.machine += after.machine - before.machine;
      spent.seconds += (after.at - before.at) / 1000;
      spent.requests += run.requests;
      if (phase === "publishing") {
        for (const [name, seconds] of Object.entries(after.processes)) {
          publishingCpu[name] = (publishingCpu[name] ?? 0) + seconds - before.processes[name]!;
        }
        publishingCpu.postgres = (publishingCpu.postgres ?? 0) + after.postgres - before.postgres;
      }
      if (phase === "publishing") {
        publisher.kill("SIGSTOP");
        publishingSeconds += BENCH_SECONDS + 1;
      }
    }
    console.error(
      `  publishing ${round + 1}/${BENCH_ROUNDS}: quiet ${runs.quiet.at(-1)!.rps.toFixed(0)} req/s, publishing ${runs.publishing.at(-1)!.rps.toFixed(0)} req/s, load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
  publisher.kill("SIGCONT");
  publisher.kill("SIGTERM");
  const told = JSON.parse(
    (await new Response(publisher.stdout as ReadableStream).text()).trim() || "{}",
  ) as { published?: number; failed?: number };
  const published = told.published ?? 0;
  const ratios = runs.publishing.map((run, i) => run.rps / runs.quiet[i]!.rps);
  const side = (r: WrkResult[]) =>
    `${median(r.map((x) => x.rps)).toFixed(0)} | ${median(r.map((x) => x.p50)).toFixed(2)} | ${median(r.map((x) => x.p99)).toFixed(2)} | ${r.reduce((n, x) => n + x.non2xx + x.socketErrors, 0)}`;
  const cores = (phase: keyof typeof cpu) => {
    const c = cpu[phase];
    const per = (value: number) => (value / c.seconds).toFixed(2);
    return `${per(c.read)} | ${((c.read * 1e6) / c.requests).toFixed(0)} | ${per(c.write)} | ${per(c.postgres)} | ${per(c.machine)}`;
  };
  sections.push(`### Distributed, house newsroom reads while another organization publishes

| reads through the gateway | requests/s (median) | p50 ms | p99 ms | non-2xx or errors |
|---|---|---|---|---|
| publisher paused | ${side(runs.quiet)} |
| another organization publishing | ${side(runs.publishing)} |

Where the CPU went during the reads (cores busy on average; the machine has ${availableParallelism()}):

| phase | gateway + public-read | their CPU µs per read | workspace, webhooks, client-api, forms, publisher | PostgreSQL (every session) | whole machine |
|---|---|---|---|---|---|
| publisher paused | ${cores("quiet")} |
| another organization publishing | ${cores("publishing")} |

CPU of each process while publishing, per story published: ${Object.entries(publishingCpu)
    .map(
      ([name, seconds]) => `${name} ${((seconds * 1000) / Math.max(published, 1)).toFixed(1)} ms`,
    )
    .join(", ")}.

Publishing: ${published} stories (${told.failed ?? 0} failed) in about ${publishingSeconds} s of publishing rounds, **${(published / publishingSeconds).toFixed(1)} stories/s** (asked ${RATE}). Reads while publishing: **${median(ratios).toFixed(3)}** of the quiet rounds (median of ${ratios.length}; rounds ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}), a loss of ${((1 - median(ratios)) * 100).toFixed(0)}%. Load average ${loadLine(loadBefore)} before, ${loadLine()} after.`);
  console.log(`${sections.join("\n\n")}\n\n${methodLine()}`);
} finally {
  await cleanup();
}
process.exit(0);
