/**
 * WEBHOOK_RETRY_SCHEDULE holds the gaps in seconds between attempts: attempt 1 when the story
 * changes, then one more attempt after each gap (7 gaps make 8 attempts).
 */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}

/** When attempt `attempts + 1` is due, after `attempts` failed ones. */
export function nextAttemptAt(
  schedule: readonly number[],
  attempts: number,
  now: Date = new Date(),
): Date {
  const gap = schedule[Math.min(attempts, schedule.length) - 1] ?? 0;
  return new Date(now.getTime() + gap * 1000);
}
