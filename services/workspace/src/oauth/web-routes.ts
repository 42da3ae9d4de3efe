import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import type { WebDeps } from "../web/deps.ts";
import { freshSignInUrl, safeReturnTo } from "../web/fresh-sign-in.ts";
import { Redirect, type SignedInVisitor, type Visitor, type WebKit } from "../web/kit.ts";
import { AFTER_SIGN_IN_COOKIE } from "../web/routes/sign-in.ts";
import { approverOrganizations } from "./access.ts";
import { findOAuthClient, type OAuthClientRow } from "./clients.ts";
import { issueAuthorizationCode } from "./codes.ts";
import { decideDevice, findPendingDevice } from "./device.ts";
import {
  authorizeErrorPage,
  type ConsentOrganization,
  consentPage,
  deviceCodePage,
  deviceDonePage,
} from "./pages.ts";
import { APPROVE_SCOPE, displayUserCode, isS256Challenge, normalizeUserCode } from "./secrets.ts";

export const AUTHORIZE_PATH = "/app/oauth/authorize";

/**
 * Wrong user codes a person may type in ten minutes (RFC 8628 §5.1): with eight letters of
 * twenty, guessing another's live code is then out of reach.
 */
export const WRONG_USER_CODES = { limit: 10, windowSeconds: 600 };
export const DEVICE_PATH = "/app/device";

/** The parameters of an authorization request that the consent form carries back. */
const CARRIED = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "state",
  "scope",
] as const;

type Carried = Record<(typeof CARRIED)[number], string>;

/**
 * The consent page of the authorization code grant (PKCE, S256 only) and the device page of the
 * device grant: a signed-in person allows an application to decide approvals for them in an
 * organization where they may.
 */
export function oauthWebRoutes(deps: WebDeps, kit: WebKit) {
  /**
   * The signed-in visitor; a signed-out one goes to sign in and comes back here after (the
   * links to these pages come from applications and devices, not from the app).
   */
  async function signedInHere(request: Request): Promise<SignedInVisitor> {
    const who = await kit.visitor(request);
    if (who.signedIn) return who as SignedInVisitor;
    const url = new URL(request.url);
    const back = encodeURIComponent(safeReturnTo(`${url.pathname}${url.search}`));
    throw new Redirect("/app/sign-in", [
      ...who.setCookies,
      kit.cookie(AFTER_SIGN_IN_COOKIE, back, 600),
    ]);
  }

  /**
   * The organizations the person may allow this application for: its own, if they approve there.
   * A session single sign-on opened reaches its own organization only: for another, the person
   * first confirms with an emailed code, as everywhere in the app.
   */
  async function organizationsFor(
    who: SignedInVisitor,
    client: OAuthClientRow,
  ): Promise<ConsentOrganization[]> {
    const bound = who.signedIn.session.ssoOrganizationId;
    if (bound !== null && bound !== client.organizationId) {
      throw new Redirect(freshSignInUrl(who.returnTo), who.setCookies);
    }
    const orgs = await approverOrganizations(deps.db, who.signedIn.person.id);
    return orgs
      .filter((org) => org.organizationId === client.organizationId)
      .map((org) => ({ id: org.organizationId, name: org.name }));
  }

  /**
   * The request checked as RFC 6749 §4.1.2.1 says: an unknown client or a redirect URI not
   * registered exactly is an error page (never a redirect); any other error goes back to the
   * application.
   */
  async function checkRequest(
    who: Visitor,
    params: Carried,
  ): Promise<{ ok: true; client: OAuthClientRow } | { ok: false; response: Response }> {
    const client = params.client_id ? await findOAuthClient(deps.db, params.client_id) : null;
    if (!client) {
      return { ok: false, response: errorPage(who, "The application (client_id) is unknown.") };
    }
    if (!params.redirect_uri || !client.redirectUris.includes(params.redirect_uri)) {
      return {
        ok: false,
        response: errorPage(who, "The redirect_uri is not one the application registered."),
      };
    }
    const back = (error: string, description: string) => ({
      ok: false as const,
      response: redirectBack(params, { error, error_description: description }),
    });
    if (params.response_type !== "code") {
      return back("unsupported_response_type", "Only response_type=code is supported.");
    }
    if (!client.grantTypes.includes("authorization_code")) {
      return back(
        "unauthorized_client",
        "This application may not use the authorization code grant.",
      );
    }
    if (params.code_challenge_method !== "S256" || !isS256Challenge(params.code_challenge)) {
      return back(
        "invalid_request",
        "PKCE is required: a code_challenge with code_challenge_method=S256.",
      );
    }
    if (params.scope && params.scope !== APPROVE_SCOPE) {
      return back("invalid_scope", `The only scope is ${APPROVE_SCOPE}.`);
    }
    return { ok: true, client };
  }

  const wrongCodesKey = (who: SignedInVisitor) => `oauth:device:wrong:${who.signedIn.person.id}`;

  /** The device page's refusal once the person typed too many wrong codes, else null. */
  async function tooManyWrongCodes(who: SignedInVisitor): Promise<Response | null> {
    const count = await deps.rateLimits.peek({
      key: wrongCodesKey(who),
      windowSeconds: WRONG_USER_CODES.windowSeconds,
    });
    if (count < WRONG_USER_CODES.limit) return null;
    const page = deviceCodePage(who, {
      error: "Too many wrong codes. Wait ten minutes, then try again.",
    });
    const response = kit.page(who, page, 429);
    response.headers.set("retry-after", String(WRONG_USER_CODES.windowSeconds));
    return response;
  }

  async function countWrongCode(who: SignedInVisitor): Promise<void> {
    await deps.rateLimits.hit([{ key: wrongCodesKey(who), ...WRONG_USER_CODES }]);
  }

  function errorPage(who: Visitor, message: string): Response {
    return kit.page(who, authorizeErrorPage(who, message), 400);
  }

  /** Back to the application with the answer, its state as it came. */
  function redirectBack(params: Carried, answer: Record<string, string>): Response {
    const target = new URL(params.redirect_uri);
    for (const [name, value] of Object.entries(answer)) target.searchParams.set(name, value);
    if (params.state) target.searchParams.set("state", params.state);
    return kit.redirect(target.toString());
  }

  /** The consent page, whose form may lead on to the application's redirect URI. */
  function consentAnswer(response: Response, redirectUri: string): Response {
    const csp = response.headers.get("content-security-policy") ?? "";
    response.headers.set(
      "content-security-policy",
      csp.replace("form-action 'self'", `form-action 'self' ${new URL(redirectUri).origin}`),
    );
    return response;
  }

  return new Elysia()
    .get(AUTHORIZE_PATH, async ({ request }) => {
      const query = new URL(request.url).searchParams;
      const params = carriedOf((name) => query.get(name));
      const anyone = await kit.visitor(request);
      const checked = await checkRequest(anyone, params);
      if (!checked.ok) return checked.response;
      const who = await signedInHere(request);
      const organizations = await organizationsFor(who, checked.client);
      const page = consentPage(who, {
        action: AUTHORIZE_PATH,
        clientName: checked.client.name,
        organizations,
        hidden: { ...params, scope: params.scope || APPROVE_SCOPE },
        refusal:
          organizations.length === 0
            ? "You may not decide approvals in the organization that registered this application."
            : undefined,
      });
      return consentAnswer(kit.page(who, page), params.redirect_uri);
    })
    .post(
      AUTHORIZE_PATH,
      async ({ request }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const params = carriedOf((name) => form.text(name, 2000));
        const checked = await checkRequest(who, params);
        if (!checked.ok) return checked.response;
        if (form.text("decision") !== "allow") {
          return redirectBack(params, {
            error: "access_denied",
            error_description: "The person denied the request.",
          });
        }
        const organizationId = form.text("organization", 100) || checked.client.organizationId;
        const organizations = await organizationsFor(who, checked.client);
        if (!organizations.some((org) => org.id === organizationId)) {
          throw new ApiError("forbidden", "You may not decide approvals in this organization.");
        }
        const code = await issueAuthorizationCode(
          deps.db,
          {
            client: checked.client,
            organizationId,
            personId: who.signedIn.person.id,
            redirectUri: params.redirect_uri,
            codeChallenge: params.code_challenge,
          },
          deps.now(),
        );
        return redirectBack(params, { code });
      },
      { parse: "none" },
    )
    .get(DEVICE_PATH, async ({ request }) => {
      const who = await signedInHere(request);
      const typed = new URL(request.url).searchParams.get("user_code")?.trim() ?? "";
      if (!typed) return kit.page(who, deviceCodePage(who));
      const refused = await tooManyWrongCodes(who);
      if (refused) return refused;
      const found = await findPendingDevice(deps.db, typed, deps.now());
      if (!found) {
        await countWrongCode(who);
        const page = deviceCodePage(who, {
          userCode: typed.slice(0, 12),
          error: "This code is unknown or expired. Check it, or start again on your device.",
        });
        return kit.page(who, page, 404);
      }
      const organizations = await organizationsFor(who, found.client);
      const page = consentPage(who, {
        action: DEVICE_PATH,
        clientName: found.client.name,
        organizations,
        hidden: { user_code: displayUserCode(found.device.userCode) },
        userCode: displayUserCode(found.device.userCode),
        refusal:
          organizations.length === 0
            ? "You may not decide approvals in the organization that registered this application."
            : undefined,
      });
      return kit.page(who, page);
    })
    .post(
      DEVICE_PATH,
      async ({ request }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const typed = form.text("user_code", 20);
        const decision = form.text("decision");
        if (!normalizeUserCode(typed) || (decision !== "allow" && decision !== "deny")) {
          const page = deviceCodePage(who, {
            userCode: typed,
            error: normalizeUserCode(typed)
              ? "Choose Allow or Deny."
              : "Enter the eight letters your device shows.",
          });
          return kit.page(who, page, 422);
        }
        const refused = await tooManyWrongCodes(who);
        if (refused) return refused;
        const pending = await findPendingDevice(deps.db, typed, deps.now());
        if (pending) await organizationsFor(who, pending.client);
        try {
          const result = await decideDevice(
            deps.db,
            {
              userCode: typed,
              personId: who.signedIn.person.id,
              organizationId: form.text("organization", 100) || null,
              decision,
            },
            deps.now(),
          );
          return kit.page(who, deviceDonePage(who, result.client.name, decision === "allow"));
        } catch (error) {
          if (error instanceof ApiError && error.code === "validation_failed") {
            await countWrongCode(who);
            const page = deviceCodePage(who, {
              userCode: typed,
              error: "This code is unknown or expired. Check it, or start again on your device.",
            });
            return kit.page(who, page, 422);
          }
          throw error;
        }
      },
      { parse: "none" },
    );
}

function carriedOf(get: (name: string) => string | null): Carried {
  const params = {} as Carried;
  for (const name of CARRIED) params[name] = (get(name) ?? "").slice(0, 2000);
  return params;
}
