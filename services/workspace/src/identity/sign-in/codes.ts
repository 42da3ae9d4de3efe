import { createHmac, randomInt } from "node:crypto";

/** A sign-in code: six digits, any of a million. */
export function newSignInCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, "0");
}

export const CODE_SHAPE = /^\d{6}$/;

/** The HMAC key of sign-in codes, derived from SECRETS_KEY so that it is used for one job only. */
export function signInCodeKey(secretsKey: Buffer): Buffer {
  return createHmac("sha256", secretsKey).update("workspace sign-in codes").digest();
}

/** What is stored of a code: an HMAC bound to its person, so a code fits no other address. */
export function hashSignInCode(key: Buffer, personId: string, code: string): string {
  return createHmac("sha256", key).update(`${personId}:${code}`).digest("hex");
}
