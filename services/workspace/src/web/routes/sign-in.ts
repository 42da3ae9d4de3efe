import { clientIpOf } from "@newsroom/shared/http/request-context";
import { Elysia, t } from "elysia";
import { EmailAddress } from "../../identity/members/model.ts";
import { endAllSessions, endSession, startSession } from "../../identity/sessions/service.ts";
import type { CodeCheck, SignInService } from "../../identity/sign-in/service.ts";
import { readCookies } from "../cookies.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { decodeForm } from "../form-decode.ts";
import { safeReturnTo } from "../fresh-sign-in.ts";
import type { WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import { codePage, signInPage } from "../pages/sign-in.ts";

/** The address a code was asked for, to prefill the code page: as long as a code lives. */
const SIGN_IN_EMAIL_COOKIE = "nr_sign_in_email";
const CODE_MAX_AGE = 600;
/**
 * A page of the app that sent a signed-out person here to come back to once signed in (the OAuth
 * consent and device pages, whose links come from elsewhere): a path under /app/, ten minutes.
 */
export const AFTER_SIGN_IN_COOKIE = "nr_after_sign_in";

function afterSignIn(request: Request): string {
  const value = readCookies(request.headers.get("cookie")).get(AFTER_SIGN_IN_COOKIE);
  if (!value) return "/app/";
  try {
    return safeReturnTo(decodeURIComponent(value));
  } catch {
    return "/app/";
  }
}
const NOT_AN_ADDRESS = "Enter your email address, such as name@example.com.";
const SignInIn = t.Object({ email: EmailAddress });

function rememberedEmail(request: Request): string | undefined {
  const value = readCookies(request.headers.get("cookie")).get(SIGN_IN_EMAIL_COOKIE);
  if (!value) return undefined;
  try {
    return decodeURIComponent(value).slice(0, 254);
  } catch {
    return undefined;
  }
}

/** What a code page says of a refused code: beside the field when wrong, else a notice. */
export function refusal(reason: Extract<CodeCheck, { ok: false }>["reason"]) {
  if (reason === "wrong") return { error: "That code is wrong or has expired." };
  return reason === "paused" ? { paused: true } : { throttled: true };
}

/** Sign-in with an emailed code, and signing out (here or everywhere). */
export function signInWebRoutes(deps: WebDeps, kit: WebKit, signIn: SignInService) {
  return new Elysia()
    .get("/app/sign-in", async ({ request }) => {
      const who = await kit.visitor(request);
      if (who.signedIn) return kit.redirect("/app/", who.setCookies);
      return kit.page(who, signInPage(who));
    })
    .post(
      "/app/sign-in",
      async ({ request }) => {
        const who = await kit.visitor(request);
        const form = await kit.form(request, who);
        // Only the address's form is judged here, never whether it is a member's.
        const decoded = decodeForm(form, SignInIn, { wording: { email: NOT_AN_ADDRESS } });
        if (!decoded.ok) {
          const email = { value: String(decoded.given.email ?? ""), error: NOT_AN_ADDRESS };
          return kit.page(who, signInPage(who, { email }), 422);
        }
        const email = decoded.value.email.trim();
        // The same answer, at once, whatever the address: the code is sent after it.
        await signIn.requestCode(email, clientIpOf(request));
        const remembered = kit.cookie(
          SIGN_IN_EMAIL_COOKIE,
          encodeURIComponent(email),
          CODE_MAX_AGE,
        );
        return kit.redirect("/app/sign-in/code", [...who.setCookies, remembered]);
      },
      { parse: "none" },
    )
    .get("/app/sign-in/code", async ({ request }) => {
      const who = await kit.visitor(request);
      return kit.page(who, codePage(who, { email: rememberedEmail(request) }));
    })
    .post(
      "/app/sign-in/code",
      async ({ request }) => {
        const who = await kit.visitor(request);
        const form = await kit.form(request, who);
        const email = form.text("email", 254);
        const result = await signIn.checkCode(email, form.text("code", 20), clientIpOf(request));
        if (!result.ok) {
          const page = codePage(who, { email, ...refusal(result.reason) });
          return kit.page(who, page, result.reason === "wrong" ? 400 : 429);
        }
        if (who.signedIn) await endSession(deps.db, who.signedIn.session.id);
        const { token } = await startSession(deps.db, result.person.id, deps.now());
        const forgotten = kit.cookie(SIGN_IN_EMAIL_COOKIE, "", 0);
        const back = afterSignIn(request);
        const cleared = kit.cookie(AFTER_SIGN_IN_COOKIE, "", 0);
        return kit.redirect(back, [kit.sessionCookie(token), forgotten, cleared]);
      },
      { parse: "none" },
    )
    .post(
      "/app/sign-out",
      async ({ request }) => {
        const who = await kit.visitor(request);
        await kit.form(request, who);
        if (who.signedIn) await endSession(deps.db, who.signedIn.session.id);
        return kit.redirect(withDone("/app/sign-in", "signed-out"), [kit.clearedSessionCookie()]);
      },
      { parse: "none" },
    )
    .get("/app/sign-out-everywhere", async ({ request }) => {
      const who = await kit.signedIn(request);
      return kit.page(
        who,
        confirmPage(who, {
          title: "Sign out everywhere",
          question: "This ends every session of your account, on every device, this one included.",
          action: "/app/sign-out-everywhere",
          button: "Sign out everywhere",
          back: "/app/",
        }),
      );
    })
    .post(
      "/app/sign-out-everywhere",
      async ({ request }) => {
        const who = await kit.signedIn(request);
        await kit.form(request, who);
        await endAllSessions(deps.db, who.signedIn.person.id);
        const signedOut = withDone("/app/sign-in", "signed-out-everywhere");
        return kit.redirect(signedOut, [kit.clearedSessionCookie()]);
      },
      { parse: "none" },
    );
}
