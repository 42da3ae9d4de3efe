import { type Html, html } from "@newsroom/shared/html";
import type { DomainStatus } from "../../identity/sso/domains.ts";
import type { SsoField } from "../../identity/sso/model.ts";
import type { SsoConfigRow } from "../../identity/sso/store.ts";
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
 * The step before the provider (an old link to GET /start): a sign-in starts only with a form
 * post carrying the page's CSRF token, so no other site can start one in this browser.
 */
export function ssoContinuePage(who: Visitor, slug: string): Html {
  const start = `/app/sso/${encodeURIComponent(slug)}/start`;
  return layout(
    who,
    "Continue to your organization's sign-in",
    html`<p>You are about to sign in through your organization's single sign-on provider.</p>
<form method="post" action="${start}">${csrfInput(who)}
  <button type="submit">Continue to single sign-on</button>
</form>`,
  );
}

/**
 * The answer of a started sign-in: the browser goes on to the provider by a refresh of its own,
 * with a link for when it does not. A form's post may not be redirected to another origin (the
 * pages' CSP allows forms to post to this app only); a navigation may.
 */
export function ssoToProviderPage(who: Visitor, location: string): Html {
  return layout(
    who,
    "Continue to your organization's sign-in",
    html`<meta http-equiv="refresh" content="0; url=${location}">
<p>You are being sent to your organization's sign-in page.</p>
<p><a class="button" href="${location}">Continue to single sign-on</a></p>`,
  );
}

/** A signed-in browser does not sign in again on top: the session is never swapped silently. */
export function ssoAlreadySignedInPage(who: Visitor): Html {
  const email = who.signedIn?.person.email ?? "";
  return layout(
    who,
    "You are already signed in",
    html`<p>This browser is signed in as <strong>${email}</strong>, so single sign-on did not sign
anyone in. To sign in as someone else, sign out first, then sign in with single sign-on again.</p>
<form method="post" action="/app/sign-out">${csrfInput(who)}
  <button type="submit">Sign out</button>
  <a class="button secondary" href="/app/">Back to your organizations</a>
</form>`,
  );
}

export interface SsoSettingsForm {
  issuer: string;
  clientId: string;
  allowedDomains: string;
  enabled: boolean;
  problems?: Partial<Record<SsoField, string>>;
}

/** A domain whose verification failed, and why. */
export interface DomainProblem {
  domain: string;
  message: string;
}

/** /app/orgs/{org}/sso: the settings of an organization's single sign-on (house owners). */
export function ssoSettingsPage(
  who: Visitor,
  org: OrgNav,
  options: {
    stored: SsoConfigRow | null;
    form: SsoSettingsForm;
    domains: DomainStatus[];
    verified?: string;
    domainProblem?: DomainProblem;
  },
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
    html`${options.verified ? notice("info", `${options.verified} is verified.`) : ""}
${options.domainProblem ? notice("error", `${options.domainProblem.domain} was not verified: see below.`) : ""}
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
      ? `A secret ending in ${stored.clientSecretHint} is stored. Leave empty to keep it; a new issuer or client id needs the secret again.`
      : "Shown only now; stored encrypted.",
    required: !stored,
  })}
  ${field({
    name: "allowed_domains",
    label: "Allowed email domains",
    value: form.allowedDomains,
    error: problems.allowed_domains,
    hint: "Comma-separated, e.g. example.com, example.org. Addresses at a domain sign in once it is verified below.",
  })}
  <div class="field"><label><input type="checkbox" name="enabled" value="yes"${form.enabled ? html` checked` : ""}>
    Enabled</label></div>
  <button type="submit">Save</button>
</form>
${domainsSection(who, action, options.domains, options.domainProblem)}`,
    { org },
  );
}

/**
 * Each allowed domain: verified, or pending with the TXT record that proves the organization
 * controls it and the button that looks it up.
 */
function domainsSection(
  who: Visitor,
  action: string,
  domains: DomainStatus[],
  problem: DomainProblem | undefined,
): Html {
  if (domains.length === 0) return html``;
  const rows = domains.map((entry, index) => {
    const error = problem?.domain === entry.domain ? problem.message : undefined;
    const errorId = `domain-${index}-error`;
    const verify =
      entry.status === "verified"
        ? ""
        : html`<form method="post" action="${action}/domains/verify" class="inline">${csrfInput(who)}
    <input type="hidden" name="domain" value="${entry.domain}">
    <button type="submit" class="secondary"${error ? html` aria-describedby="${errorId}"` : ""}>Verify ${entry.domain}</button>
  </form>${error ? html`<p class="error" id="${errorId}">${error}</p>` : ""}`;
    return html`<tr><th scope="row">${entry.domain}</th>
  <td>${entry.status}</td>
  <td><code>${entry.record.name}</code></td>
  <td><code>${entry.record.value}</code></td>
  <td>${verify}</td></tr>`;
  });
  return html`<section aria-labelledby="domains-heading">
<h2 id="domains-heading">Domain verification</h2>
<p>Single sign-on signs in addresses at a domain only once the organization has shown it controls
the domain: publish a DNS TXT record with this name and value, then verify it. A domain belongs to
one organization only.</p>
<table><caption class="visually-hidden">Allowed domains and their verification</caption>
<thead><tr><th scope="col">Domain</th><th scope="col">Status</th><th scope="col">TXT record name</th><th scope="col">TXT record value</th><th scope="col">Action</th></tr></thead>
<tbody>${rows}</tbody></table>
</section>`;
}
