import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/**
 * Keyset cursors: opaque, tamper-evident, bound to one organization and one list.
 *
 * Layout before base64url: version (1 byte), list (1 byte), the position's timestamp in
 * microseconds since the epoch (8 bytes, big-endian), the position's id (16 bytes), then the
 * first 16 bytes of an HMAC-SHA256 over the organization id and everything before it. 56
 * characters. A forged, truncated or another organization's cursor does not verify.
 */
export type CursorList = "stories" | "approvals" | "webhook_deliveries";

const LIST_BYTE: Record<CursorList, number> = { stories: 1, approvals: 2, webhook_deliveries: 3 };
const VERSION = 1;
const BODY_BYTES = 1 + 1 + 8 + 16;
const TAG_BYTES = 16;

/** Where a page ended: the last row's ordering timestamp (microseconds) and id. */
export interface Position {
  micros: bigint;
  id: string;
}

function uuidBytes(id: string): Buffer {
  return Buffer.from(id.replace(/-/g, ""), "hex");
}

function uuidText(bytes: Buffer): string {
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export class CursorCodec {
  private readonly key: Buffer;

  /** `secret` is SECRETS_KEY; the cursor key is derived from it and used for nothing else. */
  constructor(secret: Buffer) {
    this.key = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), "client-api cursor v1", 32));
  }

  private tag(organizationId: string, body: Buffer): Buffer {
    return createHmac("sha256", this.key)
      .update(uuidBytes(organizationId))
      .update(body)
      .digest()
      .subarray(0, TAG_BYTES);
  }

  encode(organizationId: string, list: CursorList, position: Position): string {
    const body = Buffer.alloc(BODY_BYTES);
    body.writeUInt8(VERSION, 0);
    body.writeUInt8(LIST_BYTE[list], 1);
    body.writeBigInt64BE(position.micros, 2);
    uuidBytes(position.id).copy(body, 10);
    return Buffer.concat([body, this.tag(organizationId, body)]).toString("base64url");
  }

  /** The position in a cursor this organization got from this list, or null. */
  decode(organizationId: string, list: CursorList, cursor: string): Position | null {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
    const raw = Buffer.from(cursor, "base64url");
    if (raw.length !== BODY_BYTES + TAG_BYTES || raw.toString("base64url") !== cursor) return null;
    const body = raw.subarray(0, BODY_BYTES);
    if (!timingSafeEqual(raw.subarray(BODY_BYTES), this.tag(organizationId, body))) return null;
    if (body.readUInt8(0) !== VERSION || body.readUInt8(1) !== LIST_BYTE[list]) return null;
    return { micros: body.readBigInt64BE(2), id: uuidText(body.subarray(10, 26)) };
  }
}

/**
 * A timestamp in microseconds as PostgreSQL reads it exactly. JavaScript dates hold only
 * milliseconds, and rows written by the database carry microseconds: a cursor rounded to the
 * millisecond would skip or repeat rows.
 */
export function microsToTimestamp(micros: bigint): string {
  const millis = micros / 1000n;
  const rest = micros - millis * 1000n;
  const base = new Date(Number(millis)).toISOString();
  return `${base.slice(0, -1)}${rest.toString().padStart(3, "0")}Z`;
}
