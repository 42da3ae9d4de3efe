import { timingSafeEqual } from "node:crypto";
import {
  type SignatureVerdict,
  TIMESTAMP_TOLERANCE_SECONDS,
} from "@newsroom/shared/webhook-endpoint-commands";
import { signPayload } from "@newsroom/shared/webhook-signature";

/** The three `webhook-*` headers from pasted `name: value` lines (names in any case). */
export function parsePastedHeaders(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(":");
    if (at <= 0) continue;
    headers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  return headers;
}

function anyEntryMatches(entries: string[], expected: string): boolean {
  const wanted = Buffer.from(expected);
  return entries.some((entry) => {
    const given = Buffer.from(entry);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  });
}

/** The body as our sender writes it: compact JSON. Null when the body is not JSON. */
function compactJson(body: string): string | null {
  try {
    return JSON.stringify(JSON.parse(body));
  } catch {
    return null;
  }
}

/**
 * Checks a pasted webhook request against an endpoint's secrets and says which part is wrong:
 * the signature first (no secret matches: wrong secret; it matches only once the body is put
 * back as compact JSON: the receiver re-encoded the body before checking), then the timestamp
 * (more than five minutes from `now`).
 */
export function verifyPastedRequest(
  request: { headers: Map<string, string>; body: string },
  secrets: readonly string[],
  now: Date,
): SignatureVerdict {
  const id = request.headers.get("webhook-id");
  const timestampText = request.headers.get("webhook-timestamp");
  const signature = request.headers.get("webhook-signature");
  const missing = [
    id ? "" : "webhook-id",
    timestampText && /^\d+$/.test(timestampText) ? "" : "webhook-timestamp",
    signature ? "" : "webhook-signature",
  ].filter(Boolean);
  if (!id || !timestampText || !signature || missing.length > 0) {
    return { kind: "missing_headers", missing };
  }
  const timestamp = Number(timestampText);
  const entries = signature.split(" ").filter(Boolean);
  const matches = (body: string) =>
    secrets.some((secret) => anyEntryMatches(entries, signPayload(secret, id, timestamp, body)));
  if (!matches(request.body)) {
    const compact = compactJson(request.body);
    if (compact !== null && compact !== request.body && matches(compact)) {
      return { kind: "body_re_encoded" };
    }
    return { kind: "wrong_secret" };
  }
  const secondsOff = Math.round(now.getTime() / 1000) - timestamp;
  if (Math.abs(secondsOff) > TIMESTAMP_TOLERANCE_SECONDS) {
    return { kind: "timestamp_outside", secondsOff };
  }
  return { kind: "valid" };
}
