import { type Html, html } from "@newsroom/shared/html";
import type { SignedInVisitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import { refusedNotice } from "./sign-in.ts";

/**
 * The code page of the 12-hour rule: ask for a code to the person's own address, then enter it;
 * the right code brings them back to `returnTo`.
 */
export function freshSignInPage(
  who: SignedInVisitor,
  options: {
    returnTo: string;
    sent?: boolean;
    error?: string;
    throttled?: boolean;
    paused?: boolean;
  },
): Html {
  const returnTo = html`<input type="hidden" name="return_to" value="${options.returnTo}">`;
  const email = who.signedIn.person.email;
  return layout(
    who,
    "Confirm it is you",
    html`${refusedNotice(options)}
${options.sent ? notice("info", `A code is on its way to ${email}. It works once, for 10 minutes.`) : ""}
${
  who.signedIn.session.ssoOrganizationId
    ? html`<p>You signed in with your organization's single sign-on, which opens that organization
only. To go further, confirm with a code sent to your email address. Then you go back to where you
were.</p>`
    : html`<p>API keys and webhook endpoints are managed, and the admin and owner roles given, after a
sign-in code from the last 12 hours.
Your last one is older, so we need a new code first. Then you go back to where you were.</p>`
}
<form method="post" action="/app/sign-in/fresh/send">${csrfInput(who)}${returnTo}
  <button type="submit"${options.sent ? html` class="secondary"` : ""}>Email a code to ${email}</button>
</form>
<form method="post" action="/app/sign-in/fresh" novalidate>${csrfInput(who)}${returnTo}
  ${field({
    name: "code",
    label: "Six-digit code",
    autocomplete: "one-time-code",
    required: true,
    error: options.error,
    extra: html` inputmode="numeric" pattern="[0-9]{6}" maxlength="6"`,
  })}
  <button type="submit">Confirm</button>
  <a class="button secondary" href="${options.returnTo}">Cancel</a>
</form>`,
  );
}
