import { log } from "@newsroom/shared/log";
import { deleteExpiredConfirmations } from "./confirmations/store.ts";
import type { FormsDeps } from "./deps.ts";
import { deleteExpiredSubmissions } from "./submission/store.ts";

const SWEEP_EVERY_MS = 15 * 60 * 1000;

/** Forgets expired submission ids and confirmation links (with the addresses they held). */
export async function sweepExpired(deps: Pick<FormsDeps, "db" | "now">) {
  const now = deps.now();
  const submissions = await deleteExpiredSubmissions(deps.db, now);
  const confirmations = await deleteExpiredConfirmations(deps.db, now);
  return { submissions, confirmations };
}

/** Runs the sweep now and every 15 minutes; returns the stop function. */
export function startSweeper(deps: Pick<FormsDeps, "db" | "now">): () => void {
  const run = () =>
    sweepExpired(deps).catch((error) =>
      log.warn("forms sweep failed", { error: error instanceof Error ? error.message : error }),
    );
  void run();
  const timer = setInterval(run, SWEEP_EVERY_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}
