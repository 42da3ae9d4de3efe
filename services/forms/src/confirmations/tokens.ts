import { createHash } from "node:crypto";
import { randomToken } from "@newsroom/shared/ids";

/** A confirmation token: 32 random bytes in base64url, 43 characters. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** A confirmation link works for 48 hours, once. */
export const CONFIRMATION_VALIDITY_MS = 48 * 60 * 60 * 1000;

export function newConfirmationToken(): { token: string; tokenHash: string } {
  const token = randomToken();
  return { token, tokenHash: hashToken(token) };
}

/** Only this is stored: SHA-256 of the token, hex. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Addresses are compared lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** SHA-256 of the lower-cased address, hex: what an organization's subscriber list keeps. */
export function emailHash(email: string): string {
  return createHash("sha256").update(normalizeEmail(email)).digest("hex");
}

/** The link in a confirmation email: the confirmation page, which POSTs the token. */
export function confirmationLink(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/v1/public/newsletter/confirm?t=${token}`;
}
