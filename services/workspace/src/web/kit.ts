import type { MemberRole } from "@newsroom/shared/db/schema";
import type { Html } from "@newsroom/shared/html";
import { randomToken } from "@newsroom/shared/ids";
import { type OrgAccess, requirePermission, staffRole } from "../identity/members/access.ts";
import type { PermissionAction } from "../identity/members/permissions.ts";
import type { PersonRow } from "../identity/members/store.ts";
import {
  resolveSession,
  SESSION_ABSOLUTE_MS,
  type SessionRow,
} from "../identity/sessions/service.ts";
import { appCookie, readCookies } from "./cookies.ts";
import { CSRF_COOKIE, CSRF_FIELD, checkCsrf, csrfKey, csrfToken } from "./csrf.ts";
import type { WebDeps } from "./deps.ts";
import { doneMessageOf } from "./flash.ts";
import { freshSignInUrl } from "./fresh-sign-in.ts";
import { shownOnce } from "./secret-once.ts";

export const SESSION_COOKIE = "nr_session";
const PRE_SESSION_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Who is asking: their session (if signed in), the CSRF token for their forms, cookies to set. */
export interface Visitor {
  signedIn: { session: SessionRow; person: PersonRow } | null;
  csrfToken: string;
  setCookies: string[];
  /**
   * The page to come back to after a sign-in step: this page for a GET, the page a form was
   * posted from (its same-origin Referer) otherwise.
   */
  returnTo: string;
  /** What the action that led here did (`?done=`), shown by the layout. */
  done: string | null;
}

/** A visitor who must be signed in; anyone else is sent to the sign-in page. */
export type SignedInVisitor = Visitor & { signedIn: NonNullable<Visitor["signedIn"]> };

/** Thrown to answer with a redirect (303) from deep in a handler. */
export class Redirect extends Error {
  constructor(
    readonly location: string,
    readonly setCookies: string[] = [],
  ) {
    super(`redirect to ${location}`);
  }
}

/** The request-level pieces every page and form of the web app uses. */
export function webKit(deps: WebDeps) {
  const key = csrfKey(deps.secretsKey);
  const appOrigin = new URL(deps.appUrl).origin;
  const secure = deps.appUrl.startsWith("https:");
  const access = { db: deps.db, houseOrg: deps.houseOrg };

  const cookie = (name: string, value: string, maxAge?: number) =>
    appCookie(name, value, { maxAge, secure });

  async function visitor(request: Request): Promise<Visitor> {
    const cookies = readCookies(request.headers.get("cookie"));
    const setCookies: string[] = [];
    const token = cookies.get(SESSION_COOKIE);
    const signedIn = await resolveSession(deps.db, token, deps.now());
    if (token && !signedIn) setCookies.push(cookie(SESSION_COOKIE, "", 0));
    let binding: string;
    if (signedIn) {
      binding = `session:${signedIn.session.id}`;
    } else {
      let pre = cookies.get(CSRF_COOKIE);
      if (!pre || !PRE_SESSION_SHAPE.test(pre)) {
        pre = randomToken();
        setCookies.push(cookie(CSRF_COOKIE, pre));
      }
      binding = `pre:${pre}`;
    }
    return {
      signedIn,
      csrfToken: csrfToken(key, binding),
      setCookies,
      returnTo: returnTo(request),
      done: doneMessageOf(request),
    };
  }

  function returnTo(request: Request): string {
    if (request.method === "GET" || request.method === "HEAD") {
      const url = new URL(request.url);
      return `${url.pathname}${url.search}`;
    }
    const referer = request.headers.get("referer");
    if (!referer || !URL.canParse(referer)) return "/app/";
    const from = new URL(referer);
    return from.origin === appOrigin ? `${from.pathname}${from.search}` : "/app/";
  }

  /**
   * A session single sign-on opened reaches the organization whose provider vouched for the
   * person, as a member: anything else (another organization, acting as staff) first needs an
   * emailed code, which lifts the limit.
   */
  function requireReach(who: SignedInVisitor, organizationId: string | null): void {
    const bound = who.signedIn.session.ssoOrganizationId;
    if (bound === null || bound === organizationId) return;
    throw new Redirect(freshSignInUrl(who.returnTo), who.setCookies);
  }

  return {
    visitor,

    /** Carries a new secret to the one page that shows it (`secret-once.ts`). */
    shownOnce: shownOnce(deps.secretsKey, cookie),

    /** The visitor, who must be signed in (else a redirect to the sign-in page). */
    async signedIn(request: Request): Promise<SignedInVisitor> {
      const who = await visitor(request);
      if (!who.signedIn) throw new Redirect("/app/sign-in", who.setCookies);
      return who as SignedInVisitor;
    },

    /**
     * The signed-in person's access to an organization for one action: the web app's one gate
     * (`requirePermission`: 404 without access, 403 without the right). A single sign-on session
     * reaching past its organization is sent to the emailed-code page.
     */
    permit(
      who: SignedInVisitor,
      orgIdOrSlug: string,
      action: PermissionAction,
    ): Promise<OrgAccess> {
      return requirePermission(access, who.signedIn.person, orgIdOrSlug, action, (granted) =>
        requireReach(who, granted.staff ? null : granted.organization.id),
      );
    },

    /**
     * The person's house role when they are staff, else null: the gate of staff-wide pages and
     * actions, which a single sign-on session reaches only after an emailed code.
     */
    async staffRole(who: SignedInVisitor): Promise<MemberRole | null> {
      const role = await staffRole(access, who.signedIn.person);
      if (role) requireReach(who, null);
      return role;
    },

    /** The fields of a form post, after its CSRF check (403 on failure). */
    async form(request: Request, who: Visitor): Promise<FormFields> {
      let fields: FormData;
      try {
        fields = await request.formData();
      } catch {
        fields = new FormData();
      }
      const presented = fields.get(CSRF_FIELD);
      checkCsrf(
        request,
        typeof presented === "string" ? presented : null,
        who.csrfToken,
        appOrigin,
      );
      return new FormFields(fields);
    },

    /** An HTML answer with the visitor's cookies and the app's security headers. */
    page(who: Visitor | null, body: Html, status = 200): Response {
      const headers = pageHeaders();
      headers.set("content-type", "text/html; charset=utf-8");
      for (const value of who?.setCookies ?? []) headers.append("set-cookie", value);
      return new Response(`<!doctype html>\n${body.value}`, { status, headers });
    },

    redirect(location: string, setCookies: string[] = []): Response {
      const headers = pageHeaders();
      headers.set("location", location);
      for (const value of setCookies) headers.append("set-cookie", value);
      return new Response(null, { status: 303, headers });
    },

    /** A cookie of the app (HttpOnly, SameSite=Lax, Path=/app); maxAge 0 deletes it. */
    cookie,

    sessionCookie(token: string): string {
      return cookie(SESSION_COOKIE, token, Math.floor(SESSION_ABSOLUTE_MS / 1000));
    },

    clearedSessionCookie(): string {
      return cookie(SESSION_COOKIE, "", 0);
    },
  };
}

export type WebKit = ReturnType<typeof webKit>;

/** Pages are private and never framed; they load nothing but the app's own stylesheet. */
export function pageHeaders(): Headers {
  return new Headers({
    "cache-control": "no-store",
    "content-security-policy":
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
  });
}

/** A posted form's text fields. */
export class FormFields {
  constructor(private readonly data: FormData) {}

  /** The field's text, trimmed; "" when absent or a file. */
  text(name: string, maxLength = 10_000): string {
    const value = this.data.get(name);
    return typeof value === "string" ? value.trim().slice(0, maxLength) : "";
  }

  /** The field's file, or null when absent or text. */
  file(name: string): File | null {
    const value = this.data.get(name);
    return typeof value === "string" ? null : value;
  }

  all(name: string): string[] {
    return this.data
      .getAll(name)
      .filter((value): value is string => typeof value === "string")
      .map((value) => value.trim());
  }
}
