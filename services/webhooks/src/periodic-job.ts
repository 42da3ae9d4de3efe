import { log } from "@newsroom/shared/log";

export interface PeriodicJob {
  stop(): Promise<void>;
}

/** Runs `pass` now and then every `intervalMs`, one pass at a time, until stopped. */
export function every(intervalMs: number, name: string, pass: () => Promise<unknown>): PeriodicJob {
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = () => {
    if (stopped || running) return;
    running = pass()
      .then(
        () => undefined,
        (error: unknown) => {
          log.warn(`${name} pass failed; will retry`, {
            error: error instanceof Error ? error.message : String(error),
          });
        },
      )
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(run, intervalMs);
  run();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
