/**
 * Embedded footprint: `npm start` on an empty PGlite folder (migrations and demo data on that
 * first start), timed from the spawn to the first 200 on /health and on the newsroom index, and
 * its peak resident memory until then, its resident memory once it answers and after a few seconds at rest. Median of
 * BENCH_STARTS starts (default 3), each in a fresh folder. Run: `bun bench/startup.bench.ts`.
 */
import { loadavg } from "node:os";
import { cleanup, loadLine, median, rssMiB, scratchPath } from "./support/external.ts";
import { startEmbeddedServer } from "./support/servers.ts";

const STARTS = Number(process.env.BENCH_STARTS ?? 3);

interface Start {
  /** The highest RSS of the first start, from spawn to answering (the kernel's VmHWM). */
  rssPeak: number;
  /** The same folder started again (no initdb, migrations or seed left to do). */
  againMs: number;
  rssAgain: number;
  healthMs: number;
  newsroomMs: number;
  rssReady: number;
  rssSettled: number;
  /** The SES emulator beside it, a process of its own (as SES is outside the service). */
  rssEmulator: number;
}

const starts: Start[] = [];
const loadBefore = loadavg();
try {
  for (let i = 0; i < STARTS; i++) {
    const folder = scratchPath(`start-${i}`);
    const server = await startEmbeddedServer({ PGLITE_DIR: folder });
    const rssReady = await rssMiB(server.pid);
    const rssPeak = await peakRssMiB(server.pid);
    await Bun.sleep(3_000);
    const rssSettled = await rssMiB(server.pid);
    const rssEmulator = await childrenRssMiB(server.pid);
    await stopProcess(server.pid);
    const again = await startEmbeddedServer({ PGLITE_DIR: folder });
    await Bun.sleep(3_000);
    const rssAgain = await rssMiB(again.pid);
    await stopProcess(again.pid);
    starts.push({
      healthMs: server.healthMs,
      newsroomMs: server.newsroomMs,
      rssPeak,
      rssReady,
      rssSettled,
      rssEmulator,
      againMs: again.newsroomMs,
      rssAgain,
    });
    console.error(
      `  start ${i + 1}/${STARTS}: /health ${server.healthMs.toFixed(0)} ms, newsroom ${server.newsroomMs.toFixed(0)} ms, RSS peak ${rssPeak} MiB, ${rssReady} MiB, ${rssSettled} MiB after 3 s; again ${again.newsroomMs.toFixed(0)} ms, ${rssAgain} MiB`,
    );
  }
} finally {
  await cleanup();
}

const m = (pick: (s: Start) => number) => median(starts.map(pick));
console.log(`### Embedded first start (empty PGlite folder, demo data)

| measure | median of ${STARTS} | range |
|---|---|---|
| spawn to first 200 on /health | ${(m((s) => s.healthMs) / 1000).toFixed(2)} s | ${range(starts.map((s) => s.healthMs / 1000))} s |
| spawn to first 200 on /v1/public/newsroom | ${(m((s) => s.newsroomMs) / 1000).toFixed(2)} s | ${range(starts.map((s) => s.newsroomMs / 1000))} s |
| peak RSS until it first answers | ${m((s) => s.rssPeak).toFixed(0)} MiB | ${range(
  starts.map((s) => s.rssPeak),
  0,
)} MiB |
| RSS when it first answers | ${m((s) => s.rssReady).toFixed(0)} MiB | ${range(
  starts.map((s) => s.rssReady),
  0,
)} MiB |
| RSS 3 s later | ${m((s) => s.rssSettled).toFixed(0)} MiB | ${range(
  starts.map((s) => s.rssSettled),
  0,
)} MiB |
| beside it, the SES emulator's own process, 3 s later | ${m((s) => s.rssEmulator).toFixed(0)} MiB | ${range(
  starts.map((s) => s.rssEmulator),
  0,
)} MiB |
| same folder started again: spawn to first 200 on the newsroom | ${(m((s) => s.againMs) / 1000).toFixed(2)} s | ${range(starts.map((s) => s.againMs / 1000))} s |
| same folder started again: RSS 3 s after | ${m((s) => s.rssAgain).toFixed(0)} MiB | ${range(
  starts.map((s) => s.rssAgain),
  0,
)} MiB |

Load average ${loadLine(loadBefore)} before, ${loadLine()} after; ${new Date().toISOString()}.`);
process.exit(0);

/** The highest resident memory the process has had so far. */
async function peakRssMiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  return Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
}

/** The resident memory of the processes the server started (the SES emulator). */
async function childrenRssMiB(pid: number): Promise<number> {
  const children = await Bun.file(`/proc/${pid}/task/${pid}/children`)
    .text()
    .catch(() => "");
  let total = 0;
  for (const child of children.split(" ").filter(Boolean)) {
    total += await rssMiB(Number(child)).catch(() => 0);
  }
  return total;
}

/** Stops a started server and waits for it to go: the PGlite folder's lock is released on exit. */
async function stopProcess(pid: number): Promise<void> {
  process.kill(pid, "SIGTERM");
  for (let i = 0; i < 100; i++) {
    if (!(await Bun.file(`/proc/${pid}/status`).exists())) return;
    const state = /State:\s+(\w)/.exec(await Bun.file(`/proc/${pid}/status`).text())?.[1];
    if (state === "Z") return;
    await Bun.sleep(100);
  }
}

function range(values: number[], digits = 2): string {
  return `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
}
