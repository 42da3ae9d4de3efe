import { type Html, html } from "@newsroom/shared/html";
import type { SsoField } from "../../sso/model.ts";
import type { SsoConfigRow } from "../../sso/store.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice, type OrgNav } from "../layout.ts";

/** The sign-in page's second way in: the organization's own provider. */
export function ssoSignInForm(
  who: Visitor,
  options: { value?: string; error?: string } = {},
): Html {
  return html`<section aria-labelledby="sso-heading">
<h2 id="sso-heading">Sign in with your organization's single sign-on</h2>
<form method="post" action="/app/sso" novalidate>${csrfInput(who)}
  ${field({
    name: "organization",
    label: "Organization or work email address",
    hint: "Your organization's slug, or your email address at its domain.",
    value: options.value,
    error: options.error,
    autocomplete: "email",
    required: true,
  })}
  <button type="submit" class="secondary">Continue with single sign-on</button>
</form>
</section>`;
}

/**
 * The step between the form and the provider. A form's navigation may not be redirected to
 * another origin (the pages' CSP allows forms to post to this app only), so the browser goes on
 * by a refresh of its own, with a link for when it does not.
 */
export function ssoContinuePage(who: Visitor, slug: string): Html {
  const start = `/app/sso/${encodeURIComponent(slug)}/start`;
  return layout(
    who,
    "Continue to your organization's sign-in",
    html`<meta http-equiv="refresh" content="0; url=${start}">
<p>You are being sent to your organization's sign-in page.</p>
<p><a class="button" href="${start}">Continue to single sign-on</a></p>`,
  );
}

export interface SsoSettingsForm {
  issuer: string;
  clientId: string;
  allowedDomains: string;
  enabled: boolean;
  problems?: Partial<Record<SsoField, string>>;
}

/** /app/orgs/{org}/sso: the staff's settings of an organization's single sign-on. */
export function ssoSettingsPage(
  who: Visitor,
  org: OrgNav,
  options: { stored: SsoConfigRow | null; form: SsoSettingsForm; saved?: boolean },
): Html {
  const { stored, form } = options;
  const problems = form.problems ?? {};
  const action = `/app/orgs/${encodeURIComponent(org.slug)}/sso`;
  const status = stored
    ? html`<p>Single sign-on is <strong>${stored.enabled ? "enabled" : "disabled"}</strong>.
Redirect URI to register at the provider: the app's address followed by <code>/sso/callback</code>.</p>`
    : html`<p>Single sign-on is not set up for ${org.name}.</p>`;
  return layout(
    who,
    `Single sign-on of ${org.name}`,
    html`${options.saved ? notice("info", "Saved.") : ""}
${Object.keys(problems).length > 0 ? notice("error", "The settings were not saved: correct the fields below.") : ""}
${status}
<form method="post" action="${action}" novalidate>${csrfInput(who)}
  ${field({ name: "issuer", label: "Issuer URL", type: "url", value: form.issuer, error: problems.issuer, hint: "The provider's issuer, e.g. https://login.example.com.", required: true })}
  ${field({ name: "client_id", label: "Client id", value: form.clientId, error: problems.client_id, required: true })}
  ${field({
    name: "client_secret",
    label: "Client secret",
    type: "password",
    autocomplete: "off",
    error: problems.client_secret,
    hint: stored
      ? `A secret ending in ${stored.clientSecretHint} is stored. Leave empty to keep it.`
      : "Shown only now; stored encrypted.",
    required: !stored,
  })}
  ${field({
    name: "allowed_domains",
    label: "Allowed email domains",
    value: form.allowedDomains,
    error: problems.allowed_domains,
    hint: "Comma-separated, e.g. example.com, example.org. Only addresses at these domains may sign in.",
  })}
  <div class="field"><label><input type="checkbox" name="enabled" value="yes"${form.enabled ? html` checked` : ""}>
    Enabled</label></div>
  <button type="submit">Save</button>
</form>`,
    { org },
  );
}
