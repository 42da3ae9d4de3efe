/**
 * The load generator every benchmark uses: `concurrency` loops sending requests for `seconds`
 * after a warm-up, timing each. Sends only where it is pointed (127.0.0.1 in every bench) and
 * stops by itself.
 */
export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Answers other than the expected statuses (200 unless told). */
  errors: number;
  /** Count of each status seen. */
  statuses: Record<number, number>;
}

export interface LoadOptions {
  seconds: number;
  concurrency: number;
  warmupSeconds?: number;
  expected?: number[];
  /** Each loop waits this long between requests (a paced client rather than a flood). */
  pauseMs?: number;
}

export function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

export function summarize(
  latencies: number[],
  seconds: number,
  statuses: Record<number, number>,
  expected: number[],
): LoadResult {
  latencies.sort((a, b) => a - b);
  const errors = Object.entries(statuses)
    .filter(([status]) => !expected.includes(Number(status)))
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    errors,
    statuses,
  };
}

interface Samples {
  latencies: number[];
  statuses: Record<number, number>;
}

/** Sends from `concurrency` loops for `seconds` after the warm-up, adding to `into`. */
async function collect(send: () => Promise<number>, options: LoadOptions, into: Samples) {
  const warmUntil = performance.now() + (options.warmupSeconds ?? 1) * 1_000;
  const until = warmUntil + options.seconds * 1_000;
  const loop = async () => {
    while (performance.now() < until) {
      const start = performance.now();
      const status = await send().catch(() => 0);
      const took = performance.now() - start;
      if (start < warmUntil) continue;
      into.statuses[status] = (into.statuses[status] ?? 0) + 1;
      into.latencies.push(took);
      if (options.pauseMs) await Bun.sleep(options.pauseMs);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
}

/** Runs `send` (one request, returning its status) from `concurrency` loops. */
export async function runLoad(
  send: () => Promise<number>,
  options: LoadOptions,
): Promise<LoadResult> {
  const samples: Samples = { latencies: [], statuses: {} };
  await collect(send, options, samples);
  return summarize(samples.latencies, options.seconds, samples.statuses, options.expected ?? [200]);
}

/**
 * Measures a baseline and a subject in alternating slices (baseline first in odd rounds, the
 * subject first in even ones), `seconds` each in all: on a noisy machine a passing burst of
 * other work then falls on both alike, and their ratio holds still.
 */
export async function runPaired(
  baseline: () => Promise<number>,
  subject: () => Promise<number>,
  options: LoadOptions & { rounds: number },
): Promise<{ baseline: LoadResult; subject: LoadResult }> {
  const slice = { ...options, seconds: options.seconds / options.rounds, warmupSeconds: 0.5 };
  const samples = [baseline, subject].map(() => ({ latencies: [], statuses: {} }) as Samples);
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) {
      await collect(which === 0 ? baseline : subject, slice, samples[which]!);
    }
  }
  const [a, b] = samples.map((s) =>
    summarize(s.latencies, options.seconds, s.statuses, options.expected ?? [200]),
  );
  return { baseline: a!, subject: b! };
}

/** A GET of `url` that reads the whole body. */
export function getter(url: string, headers: Record<string, string> = {}): () => Promise<number> {
  return async () => {
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    return response.status;
  };
}
