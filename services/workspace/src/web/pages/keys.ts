import {
  KEY_LIFETIMES_DAYS,
  KEY_SCOPES,
  type KeyEnvironment,
  MAX_LIVE_KEYS_PER_ORGANIZATION,
} from "@newsroom/shared/api-keys";
import { type Html, html } from "@newsroom/shared/html";
import { NAME_MAX_LENGTH } from "@newsroom/shared/records";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { ApiKeyRow } from "../../keys/model.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice } from "../layout.ts";
import { copyScriptTag, secretGone, secretOnce } from "../secret-once.ts";

export type KeyStatus = "live" | "revoked" | "expired";

export function keyStatus(key: ApiKeyRow, now: Date): KeyStatus {
  if (key.revokedAt) return "revoked";
  return key.expiresAt.getTime() <= now.getTime() ? "expired" : "live";
}

const day = (at: Date | null) =>
  at
    ? html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 10)} UTC</time>`
    : "never";

const keyLabel = (key: ApiKeyRow) => `${key.prefix}…${key.lastFour}`;

export interface KeysPageData {
  access: OrgAccess;
  keys: ApiKeyRow[];
  now: Date;
  /** The one environment this deployment creates keys for. */
  environment: KeyEnvironment;
  mayCreate: boolean;
  mayRevoke: boolean;
  /** The person must enter a new sign-in code before a change. */
  needsCode: boolean;
}

export interface KeyFormState {
  name?: string;
  scopes?: string[];
  lifetimeDays?: number;
  errors?: { name?: string; scopes?: string; lifetime_days?: string; environment?: string };
  /** A refusal of the whole form (the live-key limit). */
  problem?: string;
}

function keyTable(data: KeysPageData): Html {
  if (data.keys.length === 0) return html`<p>No keys yet.</p>`;
  return html`<table><caption class="visually-hidden">API keys</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Environment</th><th scope="col">Scopes</th>
<th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th>
<th scope="col">Status</th>${data.mayRevoke ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ""}</tr></thead>
<tbody>${data.keys.map((key) => {
    const status = keyStatus(key, data.now);
    const revoke =
      status === "live"
        ? html`<a href="/app/keys/${key.id}/revoke">Revoke<span class="visually-hidden"> ${keyLabel(key)}</span></a>`
        : "";
    return html`<tr><td>${key.name ? html`${key.name}<br>` : ""}<code>${keyLabel(key)}</code></td><td>${key.environment}</td>
<td>${key.scopes.join(", ")}</td><td>${day(key.createdAt)}</td><td>${day(key.lastUsedAt)}</td>
<td>${day(key.expiresAt)}</td><td><span class="status">${status}</span></td>${data.mayRevoke ? html`<td>${revoke}</td>` : ""}</tr>`;
  })}</tbody></table>`;
}

function createForm(who: Visitor, data: KeysPageData, state: KeyFormState): Html {
  const slug = encodeURIComponent(data.access.organization.slug);
  const errors = state.errors ?? {};
  const chosen = new Set(state.scopes ?? ["stories:read"]);
  const lifetime = state.lifetimeDays ?? 90;
  const errorOf = (name: string, text: string | undefined) =>
    text ? html`<p class="error" id="${name}-error">${text}</p>` : "";
  const described = (name: string, text: string | undefined) =>
    text ? html` aria-describedby="${name}-error"` : "";
  return html`<section aria-labelledby="create-key"><h2 id="create-key">Create a key</h2>
${state.problem ? notice("error", state.problem) : ""}
${data.needsCode ? notice("info", "Creating or revoking a key needs a sign-in code from the last 12 hours: you will be asked for a new one first.") : ""}
<form method="post" action="/app/orgs/${slug}/keys" novalidate>${csrfInput(who)}
  ${field({
    name: "name",
    label: "Name (optional)",
    hint: `What the key is for, up to ${NAME_MAX_LENGTH} characters: shown in the list of keys.`,
    value: state.name,
    error: errors.name,
  })}
  <input type="hidden" name="environment" value="${data.environment}">
  <p>Environment: <strong>${data.environment}</strong> (this deployment accepts ${data.environment} keys only).</p>
  ${errorOf("environment", errors.environment)}
  <fieldset class="choices${errors.scopes ? " has-error" : ""}"${described("scopes", errors.scopes)}>
    <legend>Scopes (no scope writes anything)</legend>
    ${KEY_SCOPES.map(
      (scope) =>
        html`<label><input type="checkbox" name="scopes" value="${scope}"${chosen.has(scope) ? html` checked` : ""}> ${scope}</label>`,
    )}
    ${errorOf("scopes", errors.scopes)}
  </fieldset>
  <fieldset class="choices${errors.lifetime_days ? " has-error" : ""}"${described("lifetime_days", errors.lifetime_days)}>
    <legend>Lifetime: the key stops working after</legend>
    ${KEY_LIFETIMES_DAYS.map(
      (days) =>
        html`<label><input type="radio" name="lifetime_days" value="${days}"${days === lifetime ? html` checked` : ""}> ${days} days</label>`,
    )}
    ${errorOf("lifetime_days", errors.lifetime_days)}
  </fieldset>
  <button type="submit">Create key</button>
</form></section>`;
}

/** /app/orgs/{org}/keys: the organization's keys, and a form to create one. */
export function keysPage(who: Visitor, data: KeysPageData, state: KeyFormState = {}): Html {
  const live = data.keys.filter((key) => keyStatus(key, data.now) === "live").length;
  return layout(
    who,
    `API keys of ${data.access.organization.name}`,
    html`<p>Keys let the organization's servers read its stories, approvals, feeds and webhook
deliveries. A key is shown once, when it is made. An organization may have at most
${MAX_LIVE_KEYS_PER_ORGANIZATION} keys in use, test and live keys alike (every key neither revoked
nor expired counts); it has ${live} now.
To rotate a key, create a new one, deploy it, check that the old key's "last used" date stops
moving, then revoke the old one.</p>
${keyTable(data)}
${data.mayCreate ? createForm(who, data, state) : ""}`,
    {
      org: {
        slug: data.access.organization.slug,
        name: data.access.organization.name,
        current: "keys",
        role: data.access.role,
      },
    },
  );
}

/** Where a creation leads: the key itself, shown this once (null: it was shown already). */
export function newKeyPage(
  who: Visitor,
  access: OrgAccess,
  key: ApiKeyRow,
  secret: string | null,
): Html {
  const slug = encodeURIComponent(access.organization.slug);
  return layout(
    who,
    "Your new API key",
    html`${
      secret
        ? html`${notice("info", "The key was created. It will not be shown again.")}
${secretOnce({ id: "secret", label: "API key", secret })}`
        : secretGone(`The key ${keyLabel(key)}`, {
            href: `/app/orgs/${slug}/keys`,
            label: "Back to the keys",
          })
    }
<dl><dt>Environment</dt><dd>${key.environment}</dd>
<dt>Scopes</dt><dd>${key.scopes.join(", ")}</dd>
<dt>Expires</dt><dd>${day(key.expiresAt)}</dd></dl>
<p>Use it on a server, in the header <code>Authorization: Bearer &lt;key&gt;</code>.</p>
<p><a href="/app/orgs/${slug}/keys">Back to the keys</a></p>
${copyScriptTag}`,
    {
      org: {
        slug: access.organization.slug,
        name: access.organization.name,
        current: "keys",
        role: access.role,
      },
    },
  );
}
