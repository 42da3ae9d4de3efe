import { randomInt } from "node:crypto";
import { log } from "@newsroom/shared/log";

/** A task waits this long (at random in the range) after the request that asked for it. */
export const AFTER_ANSWER_MS = { min: 100, max: 400 } as const;

/**
 * Work a request asks for but must neither wait for nor be slowed by: a sign-in lookup, a code
 * written and emailed, or nothing at all for a stranger's address. Each task starts after a
 * random pause, once the answer (and the visitor's next requests) are on their way, so what it
 * does shows in the time of no request in particular. A failure is logged, never thrown.
 */
export function afterAnswerQueue() {
  const pending = new Set<Promise<void>>();
  return {
    run(failure: string, task: () => Promise<void>): void {
      const run: Promise<void> = Bun.sleep(randomInt(AFTER_ANSWER_MS.min, AFTER_ANSWER_MS.max))
        .then(task)
        .catch((error) => {
          log.error(failure, { error: error instanceof Error ? error.name : String(error) });
        })
        .finally(() => pending.delete(run));
      pending.add(run);
    },

    /** Resolves when every task has run, those asked for meanwhile included (tests, shutdown). */
    async idle(): Promise<void> {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
