/** A receiver's `Retry-After` never pushes the next attempt further than this from now. */
export const MAX_RETRY_AFTER_MS = 6 * 60 * 60 * 1000;

/** The statuses whose `Retry-After` is honoured: too many requests, and unavailable. */
const PUSH_BACK_STATUSES = new Set([429, 503]);

/**
 * When a receiver that pushed back (429 or 503) asks to be called again: `Retry-After` in
 * seconds or as an HTTP date, capped at six hours from `now`. Null for other statuses and for a
 * missing or unreadable header.
 */
export function retryAfterOf(statusCode: number, header: string | null, now: Date): Date | null {
  if (!PUSH_BACK_STATUSES.has(statusCode) || header === null) return null;
  const value = header.trim();
  let at: number;
  if (/^\d+$/.test(value)) {
    at = now.getTime() + Number(value) * 1000;
  } else if (/^[A-Za-z]{3}, /.test(value)) {
    // An HTTP date: "Wed, 21 Oct 2015 07:28:00 GMT".
    at = Date.parse(value);
    if (Number.isNaN(at)) return null;
  } else {
    return null;
  }
  return new Date(Math.min(Math.max(at, now.getTime()), now.getTime() + MAX_RETRY_AFTER_MS));
}

/** The next attempt: the schedule's next slot, or the receiver's `Retry-After` if later. */
export function laterOf(scheduled: Date, retryAfter: Date | null | undefined): Date {
  return retryAfter && retryAfter > scheduled ? retryAfter : scheduled;
}
