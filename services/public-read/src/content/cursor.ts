import { invalidParameters } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";

/**
 * The index cursor: the position after the last item of a page, `(published_at, id)`, with the
 * timestamp to the microsecond as PostgreSQL keeps it. Opaque to clients (base64url).
 */
export interface Position {
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ` */
  at: string;
  id: string;
}

const VERSION = "p1";
const AT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{6})Z$/;

export function encodeCursor(position: Position): string {
  return Buffer.from(`${VERSION}|${position.at}|${position.id}`).toString("base64url");
}

/** Decodes a cursor; anything but one this service gave out is 400 `invalid_parameters`. */
export function decodeCursor(cursor: string): Position {
  const position = tryDecode(cursor);
  if (!position) {
    throw invalidParameters([
      { field: "cursor", reason: "invalid", message: "Pass back a next_cursor unchanged." },
    ]);
  }
  return position;
}

/** Whether a cursor decodes: the shape a route's query schema checks (`params.ts`). */
export function isCursor(cursor: string): boolean {
  return tryDecode(cursor) !== null;
}

function tryDecode(cursor: string): Position | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  // Re-encoding must give the same cursor: no lenient base64 decoding.
  if (Buffer.from(text).toString("base64url") !== cursor) return null;
  const [version, at, id, ...rest] = text.split("|");
  if (version !== VERSION || !at || !id || rest.length > 0) return null;
  if (!isUuid(id) || !validInstant(at)) return null;
  return { at, id: id.toLowerCase() };
}

/** A real instant (no 30 February, no hour 25) that PostgreSQL will accept. */
function validInstant(at: string): boolean {
  const match = AT.exec(at);
  if (!match) return false;
  const year = Number(match[1]);
  if (year < 1970 || year > 9999) return false;
  const date = new Date(`${at.slice(0, 23)}Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 19) === at.slice(0, 19);
}
