import { randomBytes } from "node:crypto";

/** A new UUID (v4) for every record id. */
export function newId(): string {
  return crypto.randomUUID();
}

/** A request id: `req_` and 24 base32-ish characters, unique per response. */
export function newRequestId(): string {
  return `req_${randomBytes(15).toString("base64url")}`;
}

/** 32 random bytes in base64url: 43 characters, the shape of keys and confirmation tokens. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
