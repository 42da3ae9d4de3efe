import type { Db } from "@newsroom/shared/db/index";
import { MailDeliveryError } from "@newsroom/shared/mailer";
import { claimCopy, markCopySent, releaseCopy } from "./store.ts";

const PARALLEL_SENDS = 4;
/** Refusals in a row after which a run stops (the provider is down; the next run goes on). */
const STOP_AFTER_REFUSALS = 10;

/** What a run of the digest or of an organization newsletter counts of its copies. */
export interface CopyCounts {
  sent: number;
  already_sent: number;
  failed: number;
  unconfirmed: number;
  stopped: boolean;
}

/** One issue's copies: how each is recorded and sent. */
export interface IssueCopies<Reader> {
  week: string;
  /** Until when the copy records are kept, so that no later run sends the week again. */
  recordUntil: Date;
  /** The route a copy record names (the organization newsletter's; the digest's is implied). */
  route?: string;
  /** The copy's record id for this reader in this week. */
  idOf(reader: Reader): string;
  send(reader: Reader): Promise<unknown>;
  /** Said when the provider did not answer (the copy may have arrived). */
  unconfirmed(reader: Reader): void;
}

/**
 * Sends each reader one copy of an issue, a few at a time and at most once across runs: a copy
 * is claimed before it is sent; a provider's refusal releases the claim (the next run tries
 * again); no answer keeps it, so a copy that may have arrived is never sent twice. Stops after
 * STOP_AFTER_REFUSALS failures in a row.
 */
export async function sendCopies<Reader>(
  db: Db,
  now: () => Date,
  readers: AsyncIterable<Reader[]>,
  issue: IssueCopies<Reader>,
  run: CopyCounts,
): Promise<void> {
  let refusalsInRow = 0;
  const sendCopy = async (reader: Reader) => {
    const id = issue.idOf(reader);
    if (!(await claimCopy(db, id, issue.week, now(), issue.recordUntil, issue.route))) {
      run.already_sent += 1;
      return;
    }
    try {
      await issue.send(reader);
    } catch (error) {
      refusalsInRow += 1;
      if (error instanceof MailDeliveryError && error.status !== undefined) {
        // The provider answered with a refusal: nothing went out.
        await releaseCopy(db, id);
        run.failed += 1;
        return;
      }
      run.unconfirmed += 1;
      issue.unconfirmed(reader);
      return;
    }
    refusalsInRow = 0;
    await markCopySent(db, id);
    run.sent += 1;
  };

  for await (const page of readers) {
    for (let i = 0; i < page.length; i += PARALLEL_SENDS) {
      if (refusalsInRow >= STOP_AFTER_REFUSALS) {
        run.stopped = true;
        return;
      }
      await Promise.all(page.slice(i, i + PARALLEL_SENDS).map(sendCopy));
    }
  }
}
