/** ISO 8601 weeks in UTC: Monday 00:00 to the next Monday 00:00. */
export interface IsoWeek {
  name: string;
  start: Date;
  end: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The Monday 00:00 UTC of ISO week 1 of `year` (the week holding 4 January). */
function firstMonday(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  const weekday = (new Date(jan4).getUTCDay() + 6) % 7; // Monday 0 .. Sunday 6
  return jan4 - weekday * DAY_MS;
}

function weekAt(year: number, index: number): IsoWeek {
  const start = new Date(firstMonday(year) + (index - 1) * 7 * DAY_MS);
  return {
    name: `${year}-W${String(index).padStart(2, "0")}`,
    start,
    end: new Date(start.getTime() + 7 * DAY_MS),
  };
}

/** The ISO week holding an instant. */
export function weekOf(instant: Date): IsoWeek {
  const day = Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate());
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  const thursday = new Date(day + (3 - weekday) * DAY_MS); // its Thursday names the ISO year
  const year = thursday.getUTCFullYear();
  const index = Math.floor((thursday.getTime() - firstMonday(year)) / (7 * DAY_MS)) + 1;
  return weekAt(year, index);
}

/** `2026-W07` as a week; null when the year has no such week (W53 exists in some years only). */
export function parseWeek(name: string): IsoWeek | null {
  const match = /^(\d{4})-W(\d{2})$/.exec(name);
  if (!match) return null;
  const week = weekAt(Number(match[1]), Number(match[2]));
  return weekOf(week.start).name === name ? week : null;
}
