import { type Html, html } from "@newsroom/shared/html";
import { NAME_MAX_LENGTH } from "@newsroom/shared/records";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import { navOf } from "./organizations.ts";

/** An OAuth application as the list shows it. */
export interface OAuthClientListItem {
  id: string;
  name: string;
  clientId: string;
  redirectUris: string[];
  grantTypes: string[];
  /** The address of the person who registered it, or null (the internal API). */
  createdBy: string | null;
  createdAt: Date;
}

export interface OAuthClientFormState {
  name?: string;
  redirectUris?: string;
  grantTypes?: string[];
  errors?: { name?: string; redirect_uris?: string; grant_types?: string };
}

/** The grant types a public client may use, as the form offers them. */
export const GRANT_TYPE_LABELS: Record<string, string> = {
  authorization_code: "Authorization code with PKCE (a browser on the person's device)",
  "urn:ietf:params:oauth:grant-type:device_code":
    "Device code (a command line or a device without a browser)",
};

const grantLabel = (grant: string) =>
  grant === "authorization_code"
    ? "authorization code"
    : grant.endsWith("device_code")
      ? "device code"
      : grant;

const day = (at: Date) =>
  html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 10)} UTC</time>`;

export const oauthClientsPath = (access: OrgAccess) =>
  `/app/orgs/${encodeURIComponent(access.organization.slug)}/oauth-clients`;

/**
 * Each application as a short list of facts rather than a table row: its client id and redirect
 * URIs are long words, which a phone-wide table would break letter by letter.
 */
function clientList(access: OrgAccess, clients: OAuthClientListItem[]): Html {
  const heading = html`<h2>Registered applications</h2>`;
  if (clients.length === 0) return html`${heading}<p>No applications yet.</p>`;
  return html`${heading}${clients.map(
    (client) => html`<section aria-labelledby="client-${client.id}">
<h3 id="client-${client.id}">${client.name}</h3>
<dl class="facts"><dt>Client id</dt><dd><code>${client.clientId}</code></dd>
<dt>Redirect URIs</dt><dd>${client.redirectUris.length === 0 ? "none" : client.redirectUris.map((uri, i) => html`${i > 0 ? html`<br>` : ""}<code>${uri}</code>`)}</dd>
<dt>Grant types</dt><dd>${client.grantTypes.map(grantLabel).join(", ")}</dd>
<dt>Registered</dt><dd>${day(client.createdAt)} by ${client.createdBy ?? "the operator"}</dd></dl>
<p><a href="${oauthClientsPath(access)}/${client.id}/delete">Delete<span class="visually-hidden"> ${client.name}</span></a></p>
</section>`,
  )}`;
}

function registerForm(who: Visitor, access: OrgAccess, state: OAuthClientFormState): Html {
  const errors = state.errors ?? {};
  const chosen = new Set(state.grantTypes ?? ["authorization_code"]);
  const urisId = "field-redirect_uris";
  const urisDescribed = [`${urisId}-hint`, errors.redirect_uris ? `${urisId}-error` : ""]
    .filter(Boolean)
    .join(" ");
  return html`<section aria-labelledby="register-client"><h2 id="register-client">Register an application</h2>
<form method="post" action="${oauthClientsPath(access)}" novalidate>${csrfInput(who)}
  ${field({
    name: "name",
    label: "Name",
    hint: `What people see when the application asks for their approval, up to ${NAME_MAX_LENGTH} characters.`,
    value: state.name,
    error: errors.name,
    required: true,
  })}
  <div class="field${errors.redirect_uris ? " has-error" : ""}">
    <label for="${urisId}">Redirect URIs, one a line</label>
    <p class="hint" id="${urisId}-hint">Each an https address, or http on this computer only
    (<code>http://127.0.0.1:port/...</code> or <code>http://localhost:port/...</code>), for a program
    that listens on the person's own machine. Needed for the authorization code flow.</p>
    <textarea id="${urisId}" name="redirect_uris" rows="3" aria-describedby="${urisDescribed}"${
      errors.redirect_uris ? html` aria-invalid="true"` : ""
    }>${state.redirectUris ?? ""}</textarea>
    ${errors.redirect_uris ? html`<p class="error" id="${urisId}-error">${errors.redirect_uris}</p>` : ""}
  </div>
  <fieldset class="choices${errors.grant_types ? " has-error" : ""}"${
    errors.grant_types ? html` aria-describedby="grant_types-error"` : ""
  }>
    <legend>Grant types</legend>
    ${Object.entries(GRANT_TYPE_LABELS).map(
      ([grant, label]) =>
        html`<label><input type="checkbox" name="grant_types" value="${grant}"${chosen.has(grant) ? html` checked` : ""}> ${label}</label>`,
    )}
    ${errors.grant_types ? html`<p class="error" id="grant_types-error">${errors.grant_types}</p>` : ""}
  </fieldset>
  <button type="submit">Register application</button>
</form></section>`;
}

/** /app/orgs/{org}/oauth-clients: the organization's OAuth applications, and a form to add one. */
export function oauthClientsPage(
  who: Visitor,
  data: {
    access: OrgAccess;
    clients: OAuthClientListItem[];
    apiApprovalsEnabled: boolean;
    /** The person must enter a new sign-in code before a change. */
    needsCode: boolean;
  },
  state: OAuthClientFormState = {},
): Html {
  const { access } = data;
  const invalid = Object.keys(state.errors ?? {}).length > 0;
  return layout(
    who,
    `OAuth applications of ${access.organization.name}`,
    html`<p>An application registered here may ask a member to let it approve or reject stories in
their name (scope <code>stories:approve</code>). It never sees a password or an API key: the member
signs in here and allows it, and may take that back at any time on
<a href="/app/applications">Your applications</a>. Applications are public clients: they have a
client id and no secret.</p>
${
  data.apiApprovalsEnabled
    ? html`<p>Approvals through the API are <strong>on</strong> for this organization.</p>`
    : html`<p>Approvals through the API are <strong>off</strong> for this organization: until an
owner turns them on, on the <a href="/app/orgs/${encodeURIComponent(access.organization.slug)}">overview</a>,
these applications can be allowed but cannot decide stories.</p>`
}
${clientList(access, data.clients)}
${invalid ? notice("error", "The application was not registered: correct the fields below.") : ""}
${data.needsCode ? notice("info", "Registering or deleting an application needs a sign-in code from the last 12 hours: you will be asked for a new one first.") : ""}
${registerForm(who, access, state)}`,
    { org: navOf(access, "oauth-clients") },
  );
}
