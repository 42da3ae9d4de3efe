import type { SessionRow } from "../identity/sessions/service.ts";
import type { SignedInVisitor } from "./kit.ts";
import { Redirect } from "./kit.ts";

/**
 * The spec: keys and webhook endpoints are managed "after a two-step sign-in code from the last
 * 12 hours or single sign-on". A session's `freshAt` is when its person last proved a sign-in.
 */
export const FRESH_SIGN_IN_MS = 12 * 3_600_000;

export const FRESH_SIGN_IN_PATH = "/app/sign-in/fresh";

export function isFreshSignIn(session: Pick<SessionRow, "freshAt">, now: Date): boolean {
  return now.getTime() - session.freshAt.getTime() < FRESH_SIGN_IN_MS;
}

/**
 * The one gate of the 12-hour rule: an older session is sent to the code page, which brings the
 * person back to `returnTo` (the page the action was started from) once the code is right.
 */
export function requireFreshSignIn(who: SignedInVisitor, now: Date, returnTo: string): void {
  if (isFreshSignIn(who.signedIn.session, now)) return;
  throw new Redirect(freshSignInUrl(returnTo), who.setCookies);
}

export function freshSignInUrl(returnTo: string): string {
  return `${FRESH_SIGN_IN_PATH}?return_to=${encodeURIComponent(safeReturnTo(returnTo))}`;
}

const HOME = "/app/";

/**
 * A place to come back to: a path of this app (under /app/), never another origin. Anything else
 * (an absolute or scheme-relative URL, a backslash, a control character) becomes the home page.
 */
export function safeReturnTo(raw: string | null | undefined): string {
  if (!raw || raw.length > 1000 || !raw.startsWith("/app/")) return HOME;
  // Browsers read "\" as "/" and drop tabs and newlines, which could turn a path into a host.
  if ([...raw].some((char) => char === "\\" || char <= "\u001f" || char === "\u007f")) {
    return HOME;
  }
  const base = "http://app.invalid";
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return HOME;
  }
  if (url.origin !== base || !url.pathname.startsWith("/app/")) return HOME;
  return `${url.pathname}${url.search}`;
}
