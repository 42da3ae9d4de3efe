/**
 * What every bench is measured with: `wrk` in its own process (1 thread, 50 connections)
 * against the server under test in its own process and against a bare `Bun.serve` in its own
 * process answering the same bytes and headers, in alternating runs. Reports each side's
 * median requests/s and p50/p99 over the rounds, the median of the per-round ratios, and the
 * machine's load average. wrk is pointed at 127.0.0.1 only; every process started here is
 * stopped by `cleanup()` (also on SIGINT and SIGTERM).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "@newsroom/shared/testing/eventually";
import type { Subprocess } from "bun";
import type { CapturedAnswer } from "./bare-server.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;
/**
 * The checkout whose servers are measured: this one, or BENCH_SERVER_ROOT (another checkout of
 * the project, say a `git worktree` of an older commit, to measure the code before a change with
 * the same bench).
 */
export const SERVER_ROOT = process.env.BENCH_SERVER_ROOT
  ? `${process.env.BENCH_SERVER_ROOT.replace(/\/$/, "")}/`
  : ROOT;
export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const BENCH_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
export const CONNECTIONS = 50;
/**
 * The `Accept-Encoding` every request of a bench sends (BENCH_ACCEPT_ENCODING, e.g. `gzip, br`);
 * none by default, as wrk sends none.
 */
export const ACCEPT_ENCODING = process.env.BENCH_ACCEPT_ENCODING ?? "";

const cleanups: (() => unknown)[] = [];
const scratch = mkdtempSync(join(tmpdir(), "newsroom-bench-"));
cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `step` at cleanup, last registered first. */
export function onCleanup(step: () => unknown): void {
  cleanups.push(step);
}

export async function cleanup(): Promise<void> {
  while (cleanups.length > 0) {
    try {
      await cleanups.pop()?.();
    } catch (error) {
      console.error(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    await cleanup();
    process.exit(130);
  });
}

/** A file in this run's scratch folder (removed at cleanup). */
export function scratchPath(name: string): string {
  return join(scratch, name);
}

/** Installs wrk from Debian's packages when it is missing. */
export async function ensureWrk(): Promise<void> {
  if (Bun.which("wrk")) return;
  console.error("wrk is missing: installing it with apt-get");
  for (const command of [
    ["apt-get", "update"],
    ["apt-get", "install", "-y", "--no-install-recommends", "wrk"],
  ]) {
    const child = Bun.spawn(command, { stdout: "ignore", stderr: "inherit" });
    if ((await child.exited) !== 0) throw new Error(`${command.join(" ")} failed`);
  }
}

/** Starts `argv` in its own process (in the measured checkout), stopped at cleanup. */
export function spawnProcess(
  argv: string[],
  env: Record<string, string | undefined>,
  output: "pipe" | "ignore" = "ignore",
): Subprocess<"ignore", "pipe" | "ignore", "inherit"> {
  const child = Bun.spawn(argv, { cwd: SERVER_ROOT, env, stdout: output, stderr: "inherit" });
  onCleanup(async () => {
    child.kill("SIGTERM");
    const ended = await Promise.race([child.exited, Bun.sleep(10_000).then(() => null)]);
    if (ended === null) child.kill("SIGKILL");
  });
  return child;
}

/** The first line a child prints (the bare server prints its port). */
async function firstLine(child: Subprocess<"ignore", "pipe" | "ignore", "inherit">) {
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0]!.trim();
}

/** The answer a server gives to `url`: status, headers and bytes, for the bare server. */
export async function captureAnswer(
  url: string,
  headers: Record<string, string> = {},
): Promise<CapturedAnswer & { bytes: number }> {
  // The bytes as sent: fetch would otherwise ask for and undo a compression of its own.
  const response = await fetch(url, {
    headers: { "accept-encoding": ACCEPT_ENCODING || "identity", ...headers },
    decompress: false,
  });
  const body = new Uint8Array(await response.arrayBuffer());
  // Bun.serve writes these itself for every answer.
  const own = new Set(["date", "content-length", "transfer-encoding", "connection", "keep-alive"]);
  const kept: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (!own.has(name)) kept.push([name, value]);
  });
  return {
    status: response.status,
    headers: kept,
    body: Buffer.from(body).toString("base64"),
    bytes: body.length,
  };
}

export interface Target {
  url: string;
  pid: number;
}

/** A bare Bun.serve in its own process answering `answer` to every request. */
export async function startBare(answer: CapturedAnswer): Promise<Target> {
  const file = scratchPath(`answer-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(answer));
  const child = spawnProcess(
    [process.execPath, join(ROOT, "bench/support/bare-server.ts")],
    { PATH: process.env.PATH, BARE_ANSWER_FILE: file },
    "pipe",
  );
  const port = Number(await firstLine(child));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid };
}

/** A bare Bun proxy in its own process: `fetch` pass-through to `base`. */
export async function startBareProxy(base: string): Promise<Target> {
  const child = spawnProcess(
    [process.execPath, join(ROOT, "bench/support/bare-server.ts")],
    { PATH: process.env.PATH, BARE_PROXY_TO: base },
    "pipe",
  );
  const port = Number(await firstLine(child));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid };
}

/** Resolves when GET url answers 200; throws after `ms`. */
export async function waitFor200(url: string, ms = 60_000, everyMs = 100): Promise<void> {
  await eventually(
    () =>
      fetch(url, { signal: AbortSignal.timeout(2_000) }).then(async (r) => {
        await r.arrayBuffer();
        return r.status === 200;
      }),
    { message: `${url} to answer 200`, timeoutMs: ms, everyMs },
  );
}

/** Linux's clock ticks a second (USER_HZ), the unit of the CPU times in /proc. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user and system) a process has used so far, from /proc; 0 once it has gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU seconds of every process whose command is `command` (PostgreSQL's backends). */
export function cpuSecondsOfCommand(command: string): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === command) {
        total += cpuSeconds(Number(entry));
      }
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** Busy CPU seconds of the whole machine, all cores, from /proc/stat. */
export function machineBusySeconds(): number {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal (guest time is counted in user already).
  const values = ticks.slice(0, 8).map(Number);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return (values.reduce((a, b) => a + b, 0) - idle) / TICKS_PER_SECOND;
}

/** Resident memory of a process in MiB, from /proc. */
export async function rssMiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
}

export interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Answers outside 2xx/3xx, and socket errors. */
  non2xx: number;
  socketErrors: number;
}

/** Prints wrk's summary as one JSON line, after its own report. */
const DONE_HOOK = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\\nWRK_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"status":%d,"socket":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout))
end
`;

/**
 * A wrk script: the done hook, plus `requestLua` (a wrk `request` function, or setup of
 * `wrk.headers`) when the requests need more than a GET of the URL.
 */
export function wrkScript(requestLua = ""): string {
  const file = scratchPath(`wrk-${Math.random().toString(36).slice(2)}.lua`);
  const encoding = ACCEPT_ENCODING
    ? `wrk.headers["Accept-Encoding"] = ${JSON.stringify(ACCEPT_ENCODING)}\n`
    : "";
  writeFileSync(file, `${encoding}${requestLua}\n${DONE_HOOK}`);
  return file;
}

/** One wrk run against `url` (127.0.0.1 only). */
export async function wrk(
  url: string,
  options: { seconds: number; script: string; connections?: number },
): Promise<WrkResult> {
  if (!new URL(url).hostname.startsWith("127.0.0.1")) throw new Error("wrk targets 127.0.0.1");
  const child = Bun.spawn(
    [
      "wrk",
      "-t1",
      `-c${options.connections ?? CONNECTIONS}`,
      `-d${options.seconds}s`,
      "--latency",
      "--timeout",
      "5s",
      "-s",
      options.script,
      url,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const line = /WRK_JSON (.*)/.exec(out)?.[1];
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}): ${err || out}`);
  const parsed = JSON.parse(line) as Record<string, number>;
  return {
    requests: parsed.requests!,
    rps: parsed.requests! / (parsed.duration_us! / 1e6),
    p50: parsed.p50_us! / 1000,
    p99: parsed.p99_us! / 1000,
    non2xx: parsed.status!,
    socketErrors: parsed.socket!,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface SideSummary {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  rounds: WrkResult[];
}

function summarize(rounds: WrkResult[]): SideSummary {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx + r.socketErrors, 0),
    rounds,
  };
}

export interface Comparison {
  bare: SideSummary;
  subject: SideSummary;
  /** Median of the per-round ratios subject/bare. */
  ratio: number;
  ratios: number[];
  loadBefore: number[];
  loadAfter: number[];
}

/**
 * wrk against `bare` and `subject` in turns (bare first in odd rounds, the subject first in
 * even ones), a short warm-up of each first.
 */
export async function compare(
  bare: string,
  subject: string,
  options: CompareOptions = {},
): Promise<Comparison> {
  const { sides, loadBefore, loadAfter } = await alternate([bare, subject], options);
  const [b, s] = sides as [WrkResult[], WrkResult[]];
  const ratios = s.map((run, i) => run.rps / b[i]!.rps);
  return {
    bare: summarize(b),
    subject: summarize(s),
    ratio: median(ratios),
    ratios,
    loadBefore,
    loadAfter,
  };
}

export interface CompareOptions {
  seconds?: number;
  rounds?: number;
  script?: string;
  label?: string;
}

/** Each of `urls` under wrk in turn, the order rotated each round so none is always first. */
export async function alternate(urls: string[], options: CompareOptions = {}) {
  const seconds = options.seconds ?? BENCH_SECONDS;
  const rounds = options.rounds ?? BENCH_ROUNDS;
  const script = options.script ?? wrkScript();
  const loadBefore = loadavg();
  for (const url of urls) await wrk(url, { seconds: 1, script });
  const sides: WrkResult[][] = urls.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < urls.length; k++) {
      const which = (round + k) % urls.length;
      sides[which]!.push(await wrk(urls[which]!, { seconds, script }));
    }
    const line = sides.map((side) => side.at(-1)!.rps.toFixed(0)).join(" / ");
    console.error(
      `  ${options.label ?? "round"} ${round + 1}/${rounds}: ${line} req/s, load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
  return { sides, loadBefore, loadAfter: loadavg() };
}

/** Several targets against the first, each with its median per-round ratio to it. */
export async function compareMany(
  targets: [string, string][],
  options: CompareOptions = {},
): Promise<{ rows: [string, SideSummary, number][]; loadBefore: number[]; loadAfter: number[] }> {
  const { sides, loadBefore, loadAfter } = await alternate(
    targets.map(([, url]) => url),
    options,
  );
  const base = sides[0]!;
  const rows = targets.map(([name], i): [string, SideSummary, number] => [
    name,
    summarize(sides[i]!),
    median(sides[i]!.map((run, r) => run.rps / base[r]!.rps)),
  ]);
  return { rows, loadBefore, loadAfter };
}

const fixed = (n: number, digits = 2) => n.toFixed(digits);

/** Markdown rows for a comparison, and a line on the ratio and the load. */
export function report(title: string, rows: [string, SideSummary][], ratio?: Comparison): string {
  const lines = [
    `### ${title}`,
    "",
    "| server | requests/s (median) | p50 ms | p99 ms | non-2xx or errors |",
    "|---|---|---|---|---|",
    ...rows.map(
      ([name, s]) =>
        `| ${name} | ${s.rps.toFixed(0)} | ${fixed(s.p50)} | ${fixed(s.p99)} | ${s.non2xx} |`,
    ),
  ];
  if (ratio) {
    const range = `${fixed(Math.min(...ratio.ratios), 3)}-${fixed(Math.max(...ratio.ratios), 3)}`;
    lines.push(
      "",
      `Ratio (median of ${ratio.ratios.length} alternating rounds): **${fixed(ratio.ratio, 3)}** of bare (rounds ${range}); load average ${loadLine(ratio.loadBefore)} before, ${loadLine(ratio.loadAfter)} after.`,
    );
  }
  return lines.join("\n");
}

/** Markdown rows for `compareMany`, each with its ratio to the first, and a line on the load. */
export function reportMany(
  title: string,
  result: Awaited<ReturnType<typeof compareMany>>,
  firstColumn = "server",
): string {
  return `### ${title}

| ${firstColumn} | requests/s (median) | p50 ms | p99 ms | non-2xx or errors | ratio to bare |
|---|---|---|---|---|---|
${result.rows
  .map(
    ([name, s, ratio]) =>
      `| ${name} | ${s.rps.toFixed(0)} | ${fixed(s.p50)} | ${fixed(s.p99)} | ${s.non2xx} | ${ratio.toFixed(3)} |`,
  )
  .join("\n")}

Ratios are the median of the per-round ratios; load average ${loadLine(result.loadBefore)} before, ${loadLine(result.loadAfter)} after.`;
}

export function loadLine(load: number[] = loadavg()): string {
  return load.map((n) => n.toFixed(2)).join(" / ");
}

/** Method line printed under every bench's output. */
export function methodLine(): string {
  return `wrk -t1 -c${CONNECTIONS} -d${BENCH_SECONDS}s --latency, ${BENCH_ROUNDS} alternating rounds, ${new Date().toISOString()}`;
}
