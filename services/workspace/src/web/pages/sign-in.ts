import { type Html, html } from "@newsroom/shared/html";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import { ssoSignInForm } from "./sso.ts";

/** Said for any address, a stranger's too: it tells nobody whether the address is a member's. */
export const SIGN_IN_PAUSED =
  "Too many wrong codes for this address today: sign-in by code is paused for it until tomorrow. Single sign-on still works where your organization has it.";
const TOO_MANY_TRIES = "Too many tries. Wait a few minutes, then try again.";

/** The notice of a refused check that is not about the code itself. */
export function refusedNotice(options: { throttled?: boolean; paused?: boolean }): Html | "" {
  if (options.paused) return notice("error", SIGN_IN_PAUSED);
  return options.throttled ? notice("error", TOO_MANY_TRIES) : "";
}

export function signInPage(
  who: Visitor,
  options: {
    sso?: { value: string; error: string };
    email?: { value: string; error: string };
  } = {},
): Html {
  return layout(
    who,
    "Sign in",
    html`<p>Enter your email address. If it belongs to a member of an organization, we email a
six-digit code to it.</p>
<form method="post" action="/app/sign-in" novalidate>${csrfInput(who)}
  ${field({
    name: "email",
    label: "Email address",
    type: "email",
    autocomplete: "email",
    required: true,
    value: options.email?.value,
    error: options.email?.error,
  })}
  <button type="submit">Email me a code</button>
</form>
${ssoSignInForm(who, options.sso)}`,
  );
}

export function codePage(
  who: Visitor,
  options: { email?: string; error?: string; throttled?: boolean; paused?: boolean } = {},
): Html {
  return layout(
    who,
    "Enter your sign-in code",
    html`${refusedNotice(options)}
<p>If the address belongs to a member, a code is on its way. It works once, for 10 minutes.
Not there? <a href="/app/sign-in">Ask for a new code</a>.</p>
<form method="post" action="/app/sign-in/code" novalidate>${csrfInput(who)}
  ${field({ name: "email", label: "Email address", type: "email", autocomplete: "email", value: options.email, required: true })}
  ${field({
    name: "code",
    label: "Six-digit code",
    autocomplete: "one-time-code",
    required: true,
    error: options.error,
    extra: html` inputmode="numeric" pattern="[0-9]{6}" maxlength="6"`,
  })}
  <button type="submit">Sign in</button>
</form>`,
  );
}
