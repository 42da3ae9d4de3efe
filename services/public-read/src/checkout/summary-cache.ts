import type { CheckoutSummaryOut } from "./model.ts";
import type { CheckoutLookup, CheckoutReader } from "./service.ts";

export interface SummaryCacheOptions {
  /** At most this many sessions remembered (default 1,000); the oldest goes first. */
  maxEntries?: number;
  /** How long a final summary is reused, in ms (default 60 s). */
  ttlMs?: number;
}

interface Entry {
  expiresAt: number;
  lookup: Promise<CheckoutLookup>;
}

/**
 * Keeps final checkout summaries in process memory for a short while, so that the same session
 * read again (a page reloaded, a client polling) does not spend the Stripe quota each time.
 * Concurrent reads of one session share one call. Summaries that may still change (an open
 * session, a complete one not yet paid), unknown sessions and failures are not kept: a buyer
 * back from paying sees the change at once.
 */
export function cachedCheckoutReader(
  reader: CheckoutReader,
  options: SummaryCacheOptions = {},
): CheckoutReader {
  const maxEntries = options.maxEntries ?? 1_000;
  const ttlMs = options.ttlMs ?? 60_000;
  const entries = new Map<string, Entry>();

  const forget = (sessionId: string, lookup: Promise<CheckoutLookup>) => {
    if (entries.get(sessionId)?.lookup === lookup) entries.delete(sessionId);
  };

  return {
    summary(sessionId) {
      const now = Date.now();
      const known = entries.get(sessionId);
      if (known && known.expiresAt > now) return known.lookup;
      entries.delete(sessionId);
      const lookup = reader.summary(sessionId);
      // Until the answer is in, concurrent reads wait for this one.
      const entry: Entry = { expiresAt: Number.POSITIVE_INFINITY, lookup };
      entries.set(sessionId, entry);
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
      lookup.then(
        (result) => {
          if (result.ok && isFinal(result.summary)) entry.expiresAt = Date.now() + ttlMs;
          else forget(sessionId, lookup);
        },
        () => forget(sessionId, lookup),
      );
      return lookup;
    },
  };
}

/** Expired, or complete and settled: what Stripe says of it no longer changes. */
function isFinal(summary: CheckoutSummaryOut): boolean {
  return (
    summary.status === "expired" ||
    (summary.status === "complete" && summary.payment_status !== "unpaid")
  );
}
