/**
 * When an endpoint is "failing". Disabling counts failed deliveries (three in a row, each after
 * its last attempt), which takes hours on the retry schedule; the alerts count failed attempts in
 * a row instead, across every delivery of the endpoint, against the attempts those deliveries
 * make before the endpoint is disabled: `disableAfter` deliveries of `maxAttempts` attempts each
 * (3 x 8 = 24 with the defaults). A 2xx ends the run (and so the episode).
 */

/** The shares of the disable threshold that raise a `webhook_endpoint.failing` alert. */
export const FAILURE_ALERT_PERCENTS = [50, 70, 90] as const;

/**
 * How long an alert of a kind keeps a new episode's alert of the same kind (and, for failing,
 * the same or a lower threshold) quiet: an endpoint that fails, recovers and fails again mails
 * its owners at most once an hour per kind.
 */
export const ALERT_QUIET_MS = 60 * 60 * 1000;

/** Failed attempts in a row that amount to the disable threshold (100%). */
export function disableThresholdAttempts(disableAfter: number, maxAttempts: number): number {
  return disableAfter * maxAttempts;
}

/** Failed attempts in a row at which `percent` of the threshold is reached (rounded up). */
export function attemptsForPercent(percent: number, thresholdAttempts: number): number {
  return Math.ceil((percent * thresholdAttempts) / 100);
}

/** The highest alert threshold that `failedInARow` reaches; 0 below the first. */
export function percentReached(failedInARow: number, thresholdAttempts: number): number {
  let reached = 0;
  for (const percent of FAILURE_ALERT_PERCENTS) {
    if (failedInARow >= attemptsForPercent(percent, thresholdAttempts)) reached = percent;
  }
  return reached;
}
