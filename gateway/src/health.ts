/** A readiness check: resolves when its part works, throws otherwise. */
export type ReadinessCheck = { name: string; check: () => Promise<void> };

const READINESS_CACHE_MS = 15_000;

/**
 * Readiness, cached 15 s in this process so probes do not hammer the database.
 * Answers `{ status, checks }` with 200 when every check passed, 503 otherwise.
 */
export function readiness(checks: ReadinessCheck[]) {
  let cached: { at: number; ok: boolean; body: unknown } | null = null;
  return async (): Promise<{ ok: boolean; body: unknown }> => {
    if (cached && Date.now() - cached.at < READINESS_CACHE_MS) return cached;
    const results: Record<string, "ok" | "failing"> = {};
    await Promise.all(
      checks.map(async ({ name, check }) => {
        results[name] = await withTimeout(check(), 3_000).then(
          () => "ok" as const,
          () => "failing" as const,
        );
      }),
    );
    const ok = Object.values(results).every((r) => r === "ok");
    cached = { at: Date.now(), ok, body: { status: ok ? "ready" : "not_ready", checks: results } };
    return cached;
  };
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return Promise.race([
    promise,
    new Promise<void>((_, reject) => setTimeout(() => reject(new Error("timeout")), ms)),
  ]);
}
