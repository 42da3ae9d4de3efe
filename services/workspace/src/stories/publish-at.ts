import { ApiError } from "@newsroom/shared/errors";

/**
 * The rule of a schedule's `publish_at`, for the internal API, the CLI and the web app: an ISO
 * 8601 date-time with its offset (`Z` or `±hh:mm`), at least the least lead ahead (one minute;
 * SCHEDULE_MIN_LEAD_SECONDS in tests) and at most a year ahead, both judged by the database's
 * clock, the one the scheduler publishes by.
 */
const PUBLISH_AT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** The most a schedule may look ahead: a year. */
export const MAX_LEAD_DAYS = 365;

function refused(reason: string, message: string): ApiError {
  return new ApiError("validation_failed", message, {
    fields: [{ field: "publish_at", reason, message }],
  });
}

/** The instant a `publish_at` names; 422 naming `publish_at` when it is missing or malformed. */
export function parsePublishAt(value: string | null | undefined): Date {
  if (!value) throw refused("required", "A schedule needs publish_at.");
  const match = PUBLISH_AT.exec(value);
  if (!match) {
    throw refused(
      "invalid",
      "publish_at must be an ISO 8601 date-time with its offset, such as 2026-03-01T09:00:00+01:00.",
    );
  }
  const at = new Date(value);
  const [, year, month, day, hour, minute, second] = match;
  // The calendar must hold the date as written: 2026-02-30 is not rolled into March.
  const offsetMinutes = offsetOf(match[7]!);
  const wall = new Date(at.getTime() + offsetMinutes * 60_000);
  const written =
    Number.isFinite(at.getTime()) &&
    wall.getUTCFullYear() === Number(year) &&
    wall.getUTCMonth() + 1 === Number(month) &&
    wall.getUTCDate() === Number(day) &&
    wall.getUTCHours() === Number(hour) &&
    wall.getUTCMinutes() === Number(minute) &&
    wall.getUTCSeconds() === Number(second ?? 0);
  if (!written) throw refused("invalid", "publish_at names no such date and time.");
  return at;
}

function offsetOf(offset: string): number {
  if (offset.toUpperCase() === "Z") return 0;
  const sign = offset.startsWith("-") ? -1 : 1;
  const [hours, minutes] = offset.slice(1).split(":").map(Number);
  return sign * (hours! * 60 + minutes!);
}

/** 422 naming `publish_at` unless it lies between `minLeadSeconds` and a year after `now`. */
export function checkPublishAtLead(at: Date, now: Date, minLeadSeconds: number): void {
  const lead = at.getTime() - now.getTime();
  if (lead < minLeadSeconds * 1000) {
    throw refused(
      "too_soon",
      `publish_at must be at least ${leadInWords(minLeadSeconds)} ahead (it is ${Math.round(lead / 1000)} s ahead).`,
    );
  }
  if (lead > MAX_LEAD_DAYS * 86_400_000) {
    throw refused("too_late", "publish_at must be at most a year ahead.");
  }
}

function leadInWords(seconds: number): string {
  return seconds === 60 ? "one minute" : `${seconds} seconds`;
}
