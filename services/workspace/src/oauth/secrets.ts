import { randomBytes } from "node:crypto";
import { hashKey } from "@newsroom/shared/api-keys";
import { randomToken } from "@newsroom/shared/ids";

/**
 * The shapes of what the authorization server hands out. Every secret is 32 random bytes in
 * base64url behind a prefix of its own, and only its SHA-256 is stored.
 */
export const ACCESS_TOKEN_PREFIX = "armo_";
export const REFRESH_TOKEN_PREFIX = "armr_";
export const DEVICE_CODE_PREFIX = "armd_";
export const AUTHORIZATION_CODE_PREFIX = "arma_";
/** A client identifier is public, not a secret. */
export const CLIENT_ID_PREFIX = "armc_";

export const ACCESS_TOKEN_SECONDS = 60 * 60;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;
export const AUTHORIZATION_CODE_SECONDS = 10 * 60;
export const DEVICE_CODE_SECONDS = 10 * 60;
export const DEVICE_POLL_INTERVAL_SECONDS = 5;

/** The one scope: deciding approvals. */
export const APPROVE_SCOPE = "stories:approve";
export const OAUTH_SCOPES = [APPROVE_SCOPE] as const;

export function newSecret(prefix: string): { secret: string; hash: string } {
  const secret = `${prefix}${randomToken()}`;
  return { secret, hash: hashSecret(secret) };
}

export function hashSecret(secret: string): string {
  return hashKey(secret);
}

export function newClientId(): string {
  return `${CLIENT_ID_PREFIX}${randomBytes(16).toString("base64url")}`;
}

/**
 * The user code's alphabet (RFC 8628 §6.1): consonants only, so no word is spelled, and no letter
 * is read as another. Eight letters carry about 34 bits: enough for ten minutes and few tries.
 */
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

/** A new user code, stored without its dash: `WDJBMJHT`. */
export function newUserCode(): string {
  const bytes = randomBytes(8);
  let code = "";
  for (const byte of bytes) code += USER_CODE_ALPHABET[byte % USER_CODE_ALPHABET.length];
  return code;
}

/** The code as shown: `WDJB-MJHT`. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed, as stored: upper case, no dash or spaces; null when it cannot be one. */
export function normalizeUserCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, "");
  if (code.length !== 8) return null;
  for (const letter of code) if (!USER_CODE_ALPHABET.includes(letter)) return null;
  return code;
}

/** The PKCE S256 challenge of a verifier (RFC 7636 §4.2). */
export function s256Challenge(verifier: string): string {
  return new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
}

/** A verifier of the shape RFC 7636 §4.1 allows: 43 to 128 unreserved characters. */
export function isCodeVerifier(value: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(value);
}

/** A challenge of the S256 shape: 43 base64url characters. */
export function isS256Challenge(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}
