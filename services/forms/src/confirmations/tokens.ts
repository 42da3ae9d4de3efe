import { createHash } from "node:crypto";
import { ApiError } from "@newsroom/shared/errors";
import { randomToken } from "@newsroom/shared/ids";
import { Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { type ParsedBody, readBody } from "../request/body.ts";

/** A confirmation token: 32 random bytes in base64url, 43 characters. */
const TOKEN_PATTERN = "^[A-Za-z0-9_-]{43}$";
export const TOKEN_SHAPE = new RegExp(TOKEN_PATTERN);

/** The body of a confirmation POST (JSON or form data), as the OpenAPI document shows it. */
export const ConfirmTokenIn = t.Object({ t: t.String({ pattern: TOKEN_PATTERN }) });

/**
 * The token of a read confirmation body, checked against ConfirmTokenIn (a repeated form field
 * keeps its last value; surrounding space is dropped): `undefined` when the body has no `t`,
 * `null` when its `t` is no token, which is answered like an unknown link.
 */
export function confirmTokenOf(fields: Record<string, unknown>): string | null | undefined {
  const raw = Object.hasOwn(fields, "t") ? fields.t : undefined;
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (value === undefined || value === null || value === "") return undefined;
  const body = { t: typeof value === "string" ? value.trim() : value };
  return Value.Check(ConfirmTokenIn, body) ? body.t : null;
}
/**
 * The token `t` of a confirmation POST's body. A body that cannot be read (not UTF-8, malformed
 * JSON or multipart) or holds no string `t` gives "", which no link matches.
 */
export async function confirmationTokenOf(request: Request): Promise<string> {
  let body: ParsedBody;
  try {
    body = await readBody(request);
  } catch (error) {
    if (error instanceof ApiError && error.code === "validation_failed") return "";
    throw error;
  }
  return confirmTokenOf(body.fields) ?? "";
}

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

/**
 * The link in a confirmation email: the confirmation page at `path` (the newsletters' by
 * default), which POSTs the token.
 */
export function confirmationLink(
  baseUrl: string,
  token: string,
  path = "/v1/public/newsletter/confirm",
): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}?t=${token}`;
}
