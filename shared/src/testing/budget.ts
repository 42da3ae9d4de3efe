/**
 * How long a test waits for a service it starts (a process, the embedded start, a cluster) to
 * answer: what holds on a loaded 2-core machine running the whole suite, longer under CI. A test
 * that starts something has a timeout of at least this plus its own work (`startBudget`).
 */
export const START_BUDGET_MS = process.env.CI === "true" ? 90_000 : 60_000;

/** A test's timeout when it starts `starts` services one after another, plus `workMs` of its own. */
export function startBudget(starts = 1, workMs = 30_000): number {
  return starts * START_BUDGET_MS + workMs;
}
