import { randomToken } from "./ids.ts";

/**
 * Embargoed preview links: the token's shape, its hash and its address, one rule for the
 * workspace (which makes and stores them) and public reads (which serve the page).
 */

/** The segment below a newsroom's home: `{home}/preview/{token}`. */
export const PREVIEW_SEGMENT = "preview";

/** A link's label: who it is for, such as a journalist's outlet. */
export const PREVIEW_LABEL_MAX_LENGTH = 100;

/** The longest a link may live. */
export const PREVIEW_MAX_DAYS = 30;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A new token: 32 random bytes (256 bits) in base64url. Shown once, never stored. */
export function makePreviewToken(): string {
  return randomToken();
}

/** Whether a path segment can be a token at all (anything else is a 404 without a read). */
export function isPreviewToken(value: string): boolean {
  return TOKEN.test(value);
}

/** What is stored and looked up: the token's SHA-256, hex. */
export function hashPreviewToken(token: string): string {
  return Bun.CryptoHasher.hash("sha256", token, "hex");
}

/** The page's address on a newsroom whose home (without a trailing slash) is `home`. */
export function previewLinkUrl(home: string, token: string): string {
  return `${home}/${PREVIEW_SEGMENT}/${token}`;
}
