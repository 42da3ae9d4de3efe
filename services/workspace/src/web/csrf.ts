import { createHmac, timingSafeEqual } from "node:crypto";
import { ApiError } from "@newsroom/shared/errors";

/**
 * CSRF tokens. Every form carries `_csrf`: an HMAC of what binds the visitor, the session id once
 * signed in, before that a random value in the `nr_csrf` cookie (a signed double submit).
 */
export const CSRF_COOKIE = "nr_csrf";
export const CSRF_FIELD = "_csrf";

export function csrfKey(secretsKey: Buffer): Buffer {
  return createHmac("sha256", secretsKey).update("workspace csrf tokens").digest();
}

export function csrfToken(key: Buffer, binding: string): string {
  return createHmac("sha256", key).update(binding).digest("base64url");
}

function sameToken(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Refuses (403) a form post whose token is missing or wrong, or that comes from another origin.
 * `Origin` is read, or without it `Referer`; with neither the token alone decides. `Origin: null`
 * (a sandboxed frame, a redirect from another site) is another origin: its Referer is not read.
 */
export function checkCsrf(
  request: Request,
  presented: string | null,
  expected: string,
  appOrigin: string,
): void {
  const origin = request.headers.get("origin");
  const referer = request.headers.get("referer");
  let from: string | null = null;
  if (origin !== null) from = origin;
  else if (referer !== null) from = URL.canParse(referer) ? new URL(referer).origin : "invalid";
  if (from !== null && from !== appOrigin) {
    throw new ApiError("forbidden", "This form was sent from another site.");
  }
  if (!presented || !sameToken(presented, expected)) {
    throw new ApiError("forbidden", "The form expired or was not sent from this site. Reload it.");
  }
}
