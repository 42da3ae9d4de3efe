import { clientIpOf } from "@newsroom/shared/http/request-context";
import { Elysia } from "elysia";
import { markSessionFresh } from "../../identity/sessions/service.ts";
import type { SignInService } from "../../identity/sign-in/service.ts";
import type { WebDeps } from "../deps.ts";
import { FRESH_SIGN_IN_PATH, safeReturnTo } from "../fresh-sign-in.ts";
import type { WebKit } from "../kit.ts";
import { freshSignInPage } from "../pages/fresh-sign-in.ts";
import { refusal } from "./sign-in.ts";

/**
 * A new sign-in code for a signed-in person whose last one is older than 12 hours: it is sent to
 * their own address, and the right code renews `freshAt` on the same session.
 */
export function freshSignInWebRoutes(deps: WebDeps, kit: WebKit, signIn: SignInService) {
  return new Elysia()
    .get(FRESH_SIGN_IN_PATH, async ({ request }) => {
      const who = await kit.signedIn(request);
      const query = new URL(request.url).searchParams;
      const returnTo = safeReturnTo(query.get("return_to"));
      return kit.page(who, freshSignInPage(who, { returnTo, sent: query.get("sent") === "1" }));
    })
    .post(
      `${FRESH_SIGN_IN_PATH}/send`,
      async ({ request }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const returnTo = safeReturnTo(form.text("return_to", 1000));
        await signIn.requestCode(who.signedIn.person.email, clientIpOf(request));
        return kit.redirect(
          `${FRESH_SIGN_IN_PATH}?return_to=${encodeURIComponent(returnTo)}&sent=1`,
          who.setCookies,
        );
      },
      { parse: "none" },
    )
    .post(
      FRESH_SIGN_IN_PATH,
      async ({ request }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const returnTo = safeReturnTo(form.text("return_to", 1000));
        const { person, session } = who.signedIn;
        const result = await signIn.checkCode(
          person.email,
          form.text("code", 20),
          clientIpOf(request),
        );
        if (!result.ok || result.person.id !== person.id) {
          const reason = result.ok ? "wrong" : result.reason;
          const page = freshSignInPage(who, { returnTo, ...refusal(reason) });
          return kit.page(who, page, reason === "wrong" ? 400 : 429);
        }
        await markSessionFresh(deps.db, session.id, deps.now());
        return kit.redirect(returnTo, who.setCookies);
      },
      { parse: "none" },
    );
}
