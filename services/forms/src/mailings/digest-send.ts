import { ApiError, validationFailed } from "@newsroom/shared/errors";
import { log } from "@newsroom/shared/log";
import type { DigestRunOut } from "@newsroom/shared/mailings";
import type { FormsDeps } from "../deps.ts";
import { composeIssue } from "./issue.ts";
import { digestList } from "./lists.ts";
import { sendCopies } from "./send-copies.ts";
import { findOrganization, publishedBetween } from "./store.ts";
import { type IsoWeek, parseWeek, weekOf } from "./week.ts";

export type SendDeps = Pick<FormsDeps, "db" | "config" | "mailer" | "contactLists" | "now">;

const DAY_MS = 24 * 60 * 60 * 1000;
/** An issue lists at most this many items, then points to the newsroom for the rest. */
export const ISSUE_ITEMS_MAX = 50;
/** A past week can be sent up to this long after it ended... */
const SENDABLE_AFTER_END_MS = 28 * DAY_MS;
/** ...and its records are kept longer than that, so no later run can send it twice. */
const RECORD_AFTER_END_MS = 35 * DAY_MS;

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

/** Until when a week's copy records are kept. */
export function recordUntil(week: IsoWeek): Date {
  return new Date(week.end.getTime() + RECORD_AFTER_END_MS);
}

/** A run that has sent nothing yet. */
export function emptyRun(week: IsoWeek) {
  return {
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
}

/**
 * Sends the week's digest of the house newsroom (HOUSE_ORG) to every confirmed subscriber, each
 * copy with its own unsubscribe link. At most once per subscriber and week: each copy is claimed
 * in the database before it is sent, so a second run, a concurrent run or a run after a crash
 * sends no copy twice. A copy the provider refused is given back and goes out on the next run.
 */
export async function sendWeeklyDigest(
  deps: SendDeps,
  weekName: string | undefined,
): Promise<DigestRunOut> {
  const mailer = deps.mailer;
  if (!mailer) throw new ApiError("forms_unavailable", "Email is not configured here.");
  const week = chooseWeek(weekName, deps.now());
  const run: DigestRunOut = { object: "digest_run", ...emptyRun(week) };

  const house = await findOrganization(deps.db, deps.config.HOUSE_ORG);
  if (!house?.newsroomRunning) return run;
  const listed = await publishedBetween(
    deps.db,
    house.id,
    week.start,
    week.end,
    ISSUE_ITEMS_MAX + 1,
  );
  run.items = listed.length;
  if (listed.length === 0) return run;

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
    kind: "weekly digest",
    items,
    more: run.items - items.length,
    newsroomUrl: `${origin}/newsroom`,
  });
  await sendCopies(
    {
      db: deps.db,
      mailer,
      now: deps.now,
      list: digestList(deps.db, deps.config),
      issue,
      fromName: house.name,
      week: week.name,
      recordUntil: recordUntil(week),
    },
    run,
  );
  log.info("digest sent", { ...run });
  return run;
}
