import { randomToken } from "./ids.ts";

/**
 * The API key format: `armk_live_` or `armk_test_` followed by 43 base64url characters
 * (32 random bytes). Only the SHA-256 of the whole key is stored.
 */
export type KeyEnvironment = "live" | "test";

export const KEY_SCOPES = ["stories:read", "approvals:read", "feed:read", "webhooks:read"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export const KEY_LIFETIMES_DAYS = [30, 90, 180, 365] as const;
export const MAX_LIVE_KEYS_PER_ORGANIZATION = 20;

const KEY_SHAPE = /^armk_(live|test)_([A-Za-z0-9_-]{43})$/;

export interface NewKey {
  secret: string;
  hash: string;
  prefix: string;
  lastFour: string;
}

export function makeKey(environment: KeyEnvironment): NewKey {
  const secret = `armk_${environment}_${randomToken()}`;
  return {
    secret,
    hash: hashKey(secret),
    prefix: `armk_${environment}_`,
    lastFour: secret.slice(-4),
  };
}

/** The environment of a well-formed key, or null for anything else. */
export function parseKey(presented: string): { environment: KeyEnvironment } | null {
  const match = KEY_SHAPE.exec(presented);
  return match ? { environment: match[1] as KeyEnvironment } : null;
}

export function hashKey(key: string): string {
  return Bun.CryptoHasher.hash("sha256", key, "hex");
}

/**
 * Compares two hex digests in constant time: every character is read whatever differs (no
 * buffers made, which cost a client API request a fiftieth of its time).
 */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** Which key environment a deployment accepts. */
export function acceptedKeyEnvironment(
  serviceEnv: "production" | "sandbox" | "development",
): KeyEnvironment {
  return serviceEnv === "production" ? "live" : "test";
}
