import { createHash } from "node:crypto";
import type { Config } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { unsubscribeLink, unsubscribeToken } from "@newsroom/shared/digest-unsubscribe";
import { ApiError, validationFailed } from "@newsroom/shared/errors";
import { log } from "@newsroom/shared/log";
import type { Mailer } from "@newsroom/shared/mailer";
import { composeIssue, copyFor } from "./email.ts";
import type { DigestRunOut } from "./model.ts";
import { sendCopies } from "./send-copies.ts";
import {
  confirmedSubscribersAfter,
  countConfirmedSubscribers,
  findHouseOrganization,
  publishedBetween,
} from "./store.ts";
import { type IsoWeek, parseWeek, weekOf } from "./week.ts";

export interface DigestDeps {
  db: Db;
  config: Pick<Config, "HOUSE_ORG" | "NEWSROOM_HOST" | "PUBLIC_BASE_URL">;
  /** Null when email is not configured: sending answers 503 forms_unavailable. */
  mailer: Mailer | null;
  /** The key unsubscribe links are signed with (from SECRETS_KEY, as the forms service has it). */
  secretsKey: Buffer;
  now: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** An issue lists at most this many items, then points to the newsroom for the rest. */
export const ISSUE_ITEMS_MAX = 50;
/** A past week can be sent up to this long after it ended... */
const SENDABLE_AFTER_END_MS = 28 * DAY_MS;
/** ...and its records are kept longer than that, so no later run can send it twice. */
const RECORD_AFTER_END_MS = 35 * DAY_MS;
const PAGE_SIZE = 200;

/** The UUID (version 8) that records one week's copy for one subscriber. */
export function copyId(subscriptionId: string, week: string): string {
  const bytes = createHash("sha256").update(`digest-copy:${week}:${subscriptionId}`).digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function chooseWeek(name: string | undefined, now: Date): IsoWeek {
  if (name === undefined) return weekOf(now);
  const week = parseWeek(name);
  if (!week) {
    throw validationFailed([{ field: "week", reason: "invalid_format", message: "no such week" }]);
  }
  if (week.start > now) {
    throw validationFailed([{ field: "week", reason: "in_future", message: "has not begun" }]);
  }
  if (week.end.getTime() + SENDABLE_AFTER_END_MS < now.getTime()) {
    throw validationFailed([
      { field: "week", reason: "too_old", message: "ended more than 28 days ago" },
    ]);
  }
  return week;
}

/**
 * Sends the week's digest of the house newsroom (HOUSE_ORG) to every confirmed subscriber, each
 * copy with its own unsubscribe link. At most once per subscriber and week: each copy is claimed
 * in the database before it is sent, so a second run, a concurrent run or a run after a crash
 * sends no copy twice. A copy the provider refused is given back and goes out on the next run.
 */
export async function sendWeeklyDigest(
  deps: DigestDeps,
  weekName: string | undefined,
): Promise<DigestRunOut> {
  const mailer = deps.mailer;
  if (!mailer) throw new ApiError("forms_unavailable", "Email is not configured here.");
  const now = deps.now();
  const week = chooseWeek(weekName, now);
  const run: DigestRunOut = {
    object: "digest_run",
    week: week.name,
    starts_at: week.start.toISOString(),
    ends_at: week.end.toISOString(),
    items: 0,
    subscribers: 0,
    sent: 0,
    already_sent: 0,
    failed: 0,
    unconfirmed: 0,
    stopped: false,
  };

  const house = await findHouseOrganization(deps.db, deps.config.HOUSE_ORG);
  if (!house?.running) return run;
  const listed = await publishedBetween(
    deps.db,
    house.id,
    week.start,
    week.end,
    ISSUE_ITEMS_MAX + 1,
  );
  run.items = listed.length;
  if (listed.length === 0) return run;
  run.subscribers = await countConfirmedSubscribers(deps.db);

  const origin = new URL(deps.config.NEWSROOM_HOST).origin;
  const items = listed.slice(0, ISSUE_ITEMS_MAX).map((item) => ({
    ...item,
    url: `${origin}/newsroom/${encodeURIComponent(item.slug)}`,
  }));
  if (listed.length > ISSUE_ITEMS_MAX) {
    // Count them all only when the issue cannot list them all.
    const all = await publishedBetween(deps.db, house.id, week.start, week.end, 100_000);
    run.items = all.length;
  }
  const issue = composeIssue({
    week,
    newsroomName: house.name,
    items,
    more: run.items - items.length,
    newsroomUrl: `${origin}/newsroom`,
  });
  const recordUntil = new Date(week.end.getTime() + RECORD_AFTER_END_MS);

  const confirmed = async function* () {
    let after: string | null = null;
    for (;;) {
      const page = await confirmedSubscribersAfter(deps.db, after, PAGE_SIZE);
      if (page.length === 0) return;
      after = page[page.length - 1]!.id;
      yield page;
    }
  };
  await sendCopies(
    deps.db,
    deps.now,
    confirmed(),
    {
      week: week.name,
      recordUntil,
      idOf: (subscriber: { id: string; email: string }) => copyId(subscriber.id, week.name),
      send: (subscriber) => {
        const link = unsubscribeLink(
          deps.config.PUBLIC_BASE_URL,
          unsubscribeToken(deps.secretsKey, subscriber.id),
        );
        return mailer.send(copyFor(issue, house.name, subscriber.email, link));
      },
      unconfirmed: (subscriber) =>
        log.warn("digest copy unconfirmed", { week: week.name, subscription: subscriber.id }),
    },
    run,
  );
  log.info("digest sent", { ...run });
  return run;
}
