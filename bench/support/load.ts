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

/** Runs `send` (one request, returning its status) from `concurrency` loops. */
export async function runLoad(
  send: () => Promise<number>,
  options: LoadOptions,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const warmUntil = performance.now() + (options.warmupSeconds ?? 1) * 1_000;
  const until = warmUntil + options.seconds * 1_000;
  const loop = async () => {
    while (performance.now() < until) {
      const start = performance.now();
      const status = await send().catch(() => 0);
      const took = performance.now() - start;
      if (start < warmUntil) continue;
      statuses[status] = (statuses[status] ?? 0) + 1;
      latencies.push(took);
      if (options.pauseMs) await Bun.sleep(options.pauseMs);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  return summarize(latencies, options.seconds, statuses, options.expected ?? [200]);
}

/** A GET of `url` that reads the whole body. */
export function getter(url: string, headers: Record<string, string> = {}): () => Promise<number> {
  return async () => {
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    return response.status;
  };
}
