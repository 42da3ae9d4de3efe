import { type Html, html } from "@newsroom/shared/html";
import { Elysia } from "elysia";

/**
 * Time zones for the schedule form: the IANA names the runtime knows, a wall-clock date and time
 * in one of them turned into an instant, and an instant shown in one. Without JavaScript the form's
 * zone is UTC unless the person picks another; with it, the browser's zone is picked
 * (`TIME_ZONE_SCRIPT`).
 */
export const TIME_ZONES: readonly string[] = [
  "UTC",
  ...Intl.supportedValuesOf("timeZone").filter((zone) => zone !== "UTC"),
];
const KNOWN = new Set(TIME_ZONES);

export function isTimeZone(zone: string): boolean {
  return KNOWN.has(zone);
}

/** Minutes the zone's clock is ahead of UTC at `at`. */
function offsetMinutes(zone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(
    part("year"),
    part("month") - 1,
    part("day"),
    part("hour"),
    part("minute"),
    part("second"),
  );
  return Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/**
 * The instant of a wall-clock `date` (YYYY-MM-DD) and `time` (HH:MM) in `zone`, written as ISO
 * 8601 with that zone's offset (what `schedule` takes); null when either is malformed.
 */
export function zonedDateTime(date: string, time: string, zone: string): string | null {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const t = /^(\d{2}):(\d{2})$/.exec(time);
  if (!d || !t || !isTimeZone(zone)) return null;
  const wall = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(t[1]), Number(t[2]));
  // The offset at the guess, then at the instant it gives (they differ across a DST change).
  let offset = offsetMinutes(zone, new Date(wall));
  offset = offsetMinutes(zone, new Date(wall - offset * 60_000));
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${date}T${time}:00${sign}${hh}:${mm}`;
}

/** `at` in `zone` as "2026-03-01 09:00 (Europe/Paris, UTC+01:00)". */
export function inZone(at: Date, zone: string): string {
  const offset = offsetMinutes(zone, at);
  const wall = new Date(at.getTime() + offset * 60_000)
    .toISOString()
    .slice(0, 16)
    .replace("T", " ");
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const hours = `${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${wall} (${zone}, UTC${sign}${hours})`;
}

/** The zone select; `data-browser-zone` lets the script pick the browser's zone. */
export function timeZoneSelect(
  field: { id: string; name: string },
  selected: string,
  pickBrowserZone: boolean,
): Html {
  return html`<select id="${field.id}" name="${field.name}"${pickBrowserZone ? html` data-browser-zone` : ""}>${TIME_ZONES.map(
    (zone) => html`<option${zone === selected ? html` selected` : ""}>${zone}</option>`,
  )}</select>`;
}

const TIME_ZONE_SCRIPT = `"use strict";
(function () {
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  document.querySelectorAll("select[data-browser-zone]").forEach(function (select) {
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === zone) { select.selectedIndex = i; return; }
    }
  });
})();
`;

export const TIME_ZONE_SCRIPT_PATH = "/app/time-zone.js";

export const timeZoneScriptTag = html`<script src="${TIME_ZONE_SCRIPT_PATH}" defer></script>`;

export function timeZoneScriptRoutes() {
  return new Elysia().get(
    TIME_ZONE_SCRIPT_PATH,
    () =>
      new Response(TIME_ZONE_SCRIPT, {
        headers: {
          "content-type": "text/javascript; charset=utf-8",
          "cache-control": "public, max-age=3600",
          "x-content-type-options": "nosniff",
        },
      }),
  );
}
