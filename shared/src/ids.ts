import { randomBytes } from "node:crypto";

/** A new UUID (v4) for every record id. */
export function newId(): string {
  return crypto.randomUUID();
}

const REQUEST_ID_BYTES = 15;
/** Random bytes for request ids, drawn in blocks: one call per id costs more than the id's use. */
let requestIdPool = randomBytes(0);
let requestIdOffset = 0;

/** A request id: `req_` and 20 base64url characters (15 random bytes), unique per response. */
export function newRequestId(): string {
  if (requestIdOffset === requestIdPool.length) {
    requestIdPool = randomBytes(REQUEST_ID_BYTES * 1024);
    requestIdOffset = 0;
  }
  const start = requestIdOffset;
  requestIdOffset += REQUEST_ID_BYTES;
  return `req_${requestIdPool.toString("base64url", start, requestIdOffset)}`;
}

/** 32 random bytes in base64url: 43 characters, the shape of keys and confirmation tokens. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
