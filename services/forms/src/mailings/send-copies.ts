import { createHash } from "node:crypto";
import type { Db } from "@newsroom/shared/db/index";
import { log } from "@newsroom/shared/log";
import type { Mailer } from "@newsroom/shared/mailer";
import type { DigestRunOut } from "@newsroom/shared/mailings";
import { isRefusal, sendOnce } from "../send-once.ts";
import { claimRecordOnce, markSubmissionSent, releaseSubmission } from "../submission/store.ts";
import { copyFor, type Issue } from "./issue.ts";
import type { MailingList, Reader } from "./lists.ts";

const PARALLEL_SENDS = 4;
/** Refusals in a row after which a run stops (the provider is down; the next run goes on). */
const STOP_AFTER_REFUSALS = 10;

/** The UUID (version 8) that records one week's copy for one reader (`Reader.key`). */
export function copyId(readerKey: string, week: string): string {
  const bytes = createHash("sha256").update(`digest-copy:${week}:${readerKey}`).digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** What a run counts of its copies (the digest's and a newsletter's alike). */
export type CopyCounts = Pick<
  DigestRunOut,
  "subscribers" | "sent" | "already_sent" | "failed" | "unconfirmed" | "stopped"
>;

export interface CopiesRun {
  db: Db;
  mailer: Mailer;
  now: () => Date;
  list: MailingList;
  issue: Issue;
  /** The sender's display name. */
  fromName: string;
  week: string;
  /** Until when the copy records are kept, so that no later run sends the week again. */
  recordUntil: Date;
}

/**
 * Sends each reader of the list one copy of an issue, a few at a time and at most once across
 * runs (`sendOnce` on a copy record that no later run takes over): a provider's refusal gives the
 * record back (the next run tries again); no answer keeps it, so a copy that may have arrived is
 * never sent twice. Counts every reader in `run`; stops after STOP_AFTER_REFUSALS in a row.
 */
export async function sendCopies(copies: CopiesRun, run: CopyCounts) {
  const { db, list, week } = copies;
  const route = list.routeOf(week);
  const counted = await list.count();
  if (counted !== null) run.subscribers = counted;
  let refusalsInRow = 0;
  const sendCopy = async (reader: Reader) => {
    const id = copyId(reader.key, week);
    if (!(await claimRecordOnce(db, id, route, copies.now(), copies.recordUntil))) {
      run.already_sent += 1;
      return;
    }
    const claim = {
      withdraw: () => releaseSubmission(db, id),
      sent: () => markSubmissionSent(db, id),
    };
    const message = copyFor(copies.issue, {
      to: reader.email,
      fromName: copies.fromName,
      reason: list.reason,
      unsubscribe: list.unsubscribeOf(reader),
    });
    try {
      await sendOnce(claim, () => copies.mailer.send(message), { keepUnanswered: true });
    } catch (error) {
      refusalsInRow += 1;
      if (isRefusal(error)) {
        run.failed += 1;
      } else {
        run.unconfirmed += 1;
        log.warn("copy unconfirmed", { route, record: id });
      }
      return;
    }
    refusalsInRow = 0;
    run.sent += 1;
  };

  for await (const page of list.readers()) {
    if (counted === null) run.subscribers += page.length;
    for (let i = 0; i < page.length; i += PARALLEL_SENDS) {
      if (refusalsInRow >= STOP_AFTER_REFUSALS) {
        run.stopped = true;
        return;
      }
      await Promise.all(page.slice(i, i + PARALLEL_SENDS).map(sendCopy));
    }
  }
}
