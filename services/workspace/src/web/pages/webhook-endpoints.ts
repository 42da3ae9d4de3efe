import {
  OPERATIONAL_EVENT_TYPES,
  STATUS_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
} from "@newsroom/shared/events";
import { type Html, html } from "@newsroom/shared/html";
import {
  NAME_MAX_LENGTH,
  type WebhookDeliveryOut,
  type WebhookEndpointOut,
} from "@newsroom/shared/records";
import {
  type EndpointOrdering,
  type EndpointTestOutcome,
  MAX_ENDPOINTS_PER_ORGANIZATION,
  MAX_RATE_LIMIT_PER_SECOND,
} from "@newsroom/shared/webhook-endpoint-commands";
import type { OrgAccess } from "../../identity/members/access.ts";
import { deliveryChart, type HourCount } from "../delivery-chart.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice, type OrgNav } from "../layout.ts";
import { copyScriptTag, secretGone, secretOnce } from "../secret-once.ts";
import { resendButton } from "./webhook-recover.ts";

/** A record's date-time (ISO 8601, UTC) as a `<time>`, to the minute. */
export const when = (at: string | null) =>
  at ? html`<time datetime="${at}">${at.slice(0, 16).replace("T", " ")} UTC</time>` : "—";

const navOf = (access: OrgAccess): OrgNav => ({
  slug: access.organization.slug,
  name: access.organization.name,
  current: "webhook-endpoints",
  role: access.role,
});

const listPath = (access: OrgAccess) =>
  `/app/orgs/${encodeURIComponent(access.organization.slug)}/webhook-endpoints`;

const FRESH_NOTE =
  "Changing, testing or deleting an endpoint needs a sign-in code from the last 12 hours: you will be asked for a new one first.";

function statusText(endpoint: WebhookEndpointOut): string {
  if (endpoint.status === "enabled") {
    return endpoint.failure_alert_percent > 0
      ? `enabled, failing: ${endpoint.failure_alert_percent}% of the disable threshold reached`
      : "enabled";
  }
  const why = {
    failing: "after failed deliveries",
    by_client: "by your organization",
    by_armage: "by us",
  };
  return `disabled ${endpoint.disabled_reason ? why[endpoint.disabled_reason] : ""}`.trim();
}

export interface EndpointFormState {
  url?: string;
  name?: string;
  events?: string[];
  /** Topic slugs as typed, comma-separated. */
  topics?: string;
  /** The authentication chosen and its fields as typed (the secret ones are never sent back). */
  auth?: { type: string; headers?: string; tokenUrl?: string; clientId?: string; scope?: string };
  /** Deliveries per second at most, as typed. */
  rateLimitPerSecond?: string;
  ordering?: string;
  errors?: {
    url?: string;
    name?: string;
    events?: string;
    topics?: string;
    auth?: string;
    rate_limit_per_second?: string;
    ordering?: string;
  };
  /** A refusal of the whole form (the endpoint limit). */
  problem?: string;
}

const AUTH_CHOICES = [
  ["none", "The signature alone"],
  ["bearer", "A bearer token"],
  ["headers", "Headers of your own"],
  ["oauth2_client_credentials", "OAuth 2.0 client credentials"],
] as const;

const ORDERING_CHOICES: readonly (readonly [EndpointOrdering, string])[] = [
  ["none", "As they come (the fastest)"],
  [
    "story",
    "Each story's events in the order they happened: a later one waits while an earlier one is retried",
  ],
];

/** What the endpoint's page says of its rate and its order. */
const rateText = (endpoint: WebhookEndpointOut) =>
  endpoint.rate_limit_per_second === null
    ? "no limit of its own"
    : `at most ${endpoint.rate_limit_per_second} deliveries a second (more wait, they do not fail)`;
const orderingText = (endpoint: WebhookEndpointOut) =>
  ORDERING_CHOICES.find(([value]) => value === endpoint.ordering)?.[1] ?? endpoint.ordering;

/** How fast and in which order deliveries go: a rate, and a choice of order. */
function pacingFields(state: EndpointFormState): Html {
  const errors = state.errors ?? {};
  const chosen = state.ordering ?? "none";
  return html`${field({
    name: "rate_limit_per_second",
    label: "Deliveries per second at most (optional)",
    type: "number",
    hint: `A whole number from 1 to ${MAX_RATE_LIMIT_PER_SECOND}: deliveries over it wait their turn, they do not fail. Empty: no limit of its own.`,
    value: state.rateLimitPerSecond,
    error: errors.rate_limit_per_second,
    extra: html` inputmode="numeric" min="1" max="${MAX_RATE_LIMIT_PER_SECOND}" step="1"`,
  })}
  <fieldset class="choices${errors.ordering ? " has-error" : ""}"${errors.ordering ? html` aria-describedby="ordering-error"` : ""}>
    <legend>Order of each story's events</legend>
    ${ORDERING_CHOICES.map(
      ([value, label]) =>
        html`<label><input type="radio" name="ordering" value="${value}"${value === chosen ? html` checked` : ""}> ${label}</label>`,
    )}
    ${errors.ordering ? html`<p class="error" id="ordering-error">${errors.ordering}</p>` : ""}
  </fieldset>`;
}

/** How requests authenticate beyond the signature: a choice, and the fields each one needs. */
function authFields(state: EndpointFormState): Html {
  const chosen = state.auth?.type ?? "none";
  const error = state.errors?.auth;
  return html`<fieldset class="choices${error ? " has-error" : ""}"${error ? html` aria-describedby="auth-error"` : ""}>
    <legend>Authentication beyond the signature (optional)</legend>
    ${AUTH_CHOICES.map(
      ([value, label]) =>
        html`<label><input type="radio" name="auth_type" value="${value}"${value === chosen ? html` checked` : ""}> ${label}</label>`,
    )}
    ${error ? html`<p class="error" id="auth-error">${error}</p>` : ""}
    ${field({ name: "auth_token", label: "Bearer token", type: "password", autocomplete: "off" })}
    <div class="field"><label for="field-auth_headers">Headers, one <code>Name: value</code> a line</label>
    <p class="hint" id="field-auth_headers-hint">Never the webhook-* headers or content-type.</p>
    <textarea id="field-auth_headers" name="auth_headers" rows="3" aria-describedby="field-auth_headers-hint">${state.auth?.headers ?? ""}</textarea></div>
    ${field({ name: "auth_token_url", label: "OAuth token endpoint (its https address)", type: "url", value: state.auth?.tokenUrl })}
    ${field({ name: "auth_client_id", label: "OAuth client id", value: state.auth?.clientId })}
    ${field({ name: "auth_client_secret", label: "OAuth client secret", type: "password", autocomplete: "off" })}
    ${field({ name: "auth_scope", label: "OAuth scope (optional)", value: state.auth?.scope })}
    <p class="hint">Fill in the fields of your choice only. Credentials are stored sealed and never shown again.</p>
  </fieldset>`;
}

export interface EndpointsPageData {
  access: OrgAccess;
  endpoints: WebhookEndpointOut[];
  needsCode: boolean;
}

function createForm(who: Visitor, data: EndpointsPageData, state: EndpointFormState): Html {
  const errors = state.errors ?? {};
  const chosen = new Set<string>(state.events ?? WEBHOOK_EVENT_TYPES);
  return html`<section aria-labelledby="add-endpoint"><h2 id="add-endpoint">Add an endpoint</h2>
${state.problem ? notice("error", state.problem) : ""}
${data.needsCode ? notice("info", FRESH_NOTE) : ""}
<form method="post" action="${listPath(data.access)}" novalidate>${csrfInput(who)}
  ${field({
    name: "url",
    label: "URL",
    type: "url",
    hint: "https, a public host name and the default port; redirects are not followed.",
    value: state.url,
    error: errors.url,
    required: true,
  })}
  ${field({
    name: "name",
    label: "Name (optional)",
    hint: `What the endpoint is for, up to ${NAME_MAX_LENGTH} characters: shown in the list.`,
    value: state.name,
    error: errors.name,
  })}
  <fieldset class="choices${errors.events ? " has-error" : ""}"${errors.events ? html` aria-describedby="events-error"` : ""}>
    <legend>Events to send</legend>
    ${WEBHOOK_EVENT_TYPES.map(
      (type) =>
        html`<label><input type="checkbox" name="events" value="${type}"${chosen.has(type) ? html` checked` : ""}> ${type}</label>`,
    )}
    ${errors.events ? html`<p class="error" id="events-error">${errors.events}</p>` : ""}
  </fieldset>
  <fieldset class="choices">
    <legend>Alerts about this organization's other endpoints (optional)</legend>
    <p class="hint">Sent when another endpoint is failing, is disabled or gives up a delivery, so your systems can page you; never about this endpoint itself.</p>
    ${OPERATIONAL_EVENT_TYPES.map(
      (type) =>
        html`<label><input type="checkbox" name="events" value="${type}"${chosen.has(type) ? html` checked` : ""}> ${type}</label>`,
    )}
  </fieldset>
  <fieldset class="choices">
    <legend>Status page (optional)</legend>
    <p class="hint">Sent when an incident or a scheduled maintenance on the service's status page is opened or updated. Topics do not apply.</p>
    ${STATUS_EVENT_TYPES.map(
      (type) =>
        html`<label><input type="checkbox" name="events" value="${type}"${chosen.has(type) ? html` checked` : ""}> ${type}</label>`,
    )}
  </fieldset>
  ${field({
    name: "topics",
    label: "Topics (optional)",
    hint: "Topic slugs, separated by commas: only stories with one of them are sent. Empty: every story.",
    value: state.topics,
    error: errors.topics,
  })}
  ${pacingFields(state)}
  ${authFields(state)}
  <button type="submit">Add endpoint</button>
</form></section>`;
}

/** /app/orgs/{org}/webhook-endpoints: the organization's endpoints, and a form to add one. */
export function endpointsPage(
  who: Visitor,
  data: EndpointsPageData,
  state: EndpointFormState = {},
): Html {
  const rows = data.endpoints.map(
    (
      endpoint,
    ) => html`<tr><td>${endpoint.name ? html`${endpoint.name}<br>` : ""}<a href="/app/webhook-endpoints/${endpoint.id}">${endpoint.url}</a></td>
<td>${endpoint.events.join(", ")}</td><td><span class="status">${statusText(endpoint)}</span></td>
<td><code>whsec_…${endpoint.secret_hint}</code></td><td>${when(endpoint.created_at)}</td></tr>`,
  );
  return layout(
    who,
    `Webhook endpoints of ${data.access.organization.name}`,
    html`<p>We send each story event your organization subscribes to, signed with the endpoint's
secret, to its URL. An organization may have at most ${MAX_ENDPOINTS_PER_ORGANIZATION} endpoints;
it has ${data.endpoints.length}. To change a secret, rotate it on the endpoint's page: for 24
hours each request is signed with both the new and the old secret. The
<a href="/app/orgs/${encodeURIComponent(data.access.organization.slug)}/webhook-catalog">payload catalog</a>
shows each event's schema and a sample, and checks a request's signature.</p>
${
  data.endpoints.length === 0
    ? html`<p>No endpoints yet.</p>`
    : html`<table><caption class="visually-hidden">Webhook endpoints</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th>
<th scope="col">Secret</th><th scope="col">Added</th></tr></thead><tbody>${rows}</tbody></table>`
}
${createForm(who, data, state)}`,
    { org: navOf(data.access) },
  );
}

/** /app/webhook-endpoints/{id}/options: the form that changes an endpoint's rate and order. */
export function endpointOptionsPage(
  who: Visitor,
  access: OrgAccess,
  endpoint: WebhookEndpointOut,
  state: EndpointFormState,
  needsCode: boolean,
): Html {
  const page = `/app/webhook-endpoints/${endpoint.id}`;
  return layout(
    who,
    `Rate and order of ${endpoint.url}`,
    html`${needsCode ? notice("info", FRESH_NOTE) : ""}
<p>A rate holds across every sender: deliveries over it wait their turn and are not counted as
attempts. A change of order applies to the deliveries already waiting too.</p>
<form method="post" action="${page}/options" novalidate>${csrfInput(who)}
  ${pacingFields(state)}
  <button type="submit">Save</button>
</form>
<p><a href="${page}">Back to the endpoint</a></p>`,
    { org: navOf(access) },
  );
}

/** The answer to a rotation: the new signing secret, shown this once, and the overlap. */
export function rotatedSecretPage(
  who: Visitor,
  access: OrgAccess,
  endpoint: WebhookEndpointOut,
  secret: string | null,
): Html {
  if (secret === null) {
    return layout(
      who,
      "Your endpoint's new signing secret",
      secretGone("The new signing secret", {
        href: `/app/webhook-endpoints/${endpoint.id}`,
        label: "Go to the endpoint",
      }),
      { org: navOf(access) },
    );
  }
  return layout(
    who,
    "Your endpoint's new signing secret",
    html`${notice("info", "The secret was rotated. The new secret will not be shown again.")}
<p>Until ${when(endpoint.previous_secret_expires_at)}, each request to <strong>${endpoint.url}</strong>
carries two signatures in <code>webhook-signature</code>: one with this secret and one with the
old one, so your receiver keeps verifying while you switch it over. After that only this secret
signs.</p>
${secretOnce({ id: "secret", label: "New signing secret", secret })}
<p><a href="/app/webhook-endpoints/${endpoint.id}">Go to the endpoint</a> or
<a href="${listPath(access)}">back to the endpoints</a>.</p>
${copyScriptTag}`,
    { org: navOf(access) },
  );
}

/** Where an addition leads: the signing secret, shown this once (null: it was shown already). */
export function newEndpointPage(
  who: Visitor,
  access: OrgAccess,
  endpoint: WebhookEndpointOut,
  secret: string | null,
): Html {
  return layout(
    who,
    "Your new webhook endpoint",
    secret
      ? html`${notice("info", "The endpoint was added. Its signing secret will not be shown again.")}
<p>Deliveries to <strong>${endpoint.url}</strong> are signed with this secret (Standard Webhooks:
check <code>webhook-signature</code> against it on the raw body).</p>
${secretOnce({ id: "secret", label: "Signing secret", secret })}
<p><a href="/app/webhook-endpoints/${endpoint.id}">Go to the endpoint</a> (send a test event
there) or <a href="${listPath(access)}">back to the endpoints</a>.</p>
${copyScriptTag}`
      : secretGone(`The signing secret of ${endpoint.url}`, {
          href: `/app/webhook-endpoints/${endpoint.id}`,
          label: "Go to the endpoint",
        }),
    { org: navOf(access) },
  );
}

export interface EndpointPageData {
  access: OrgAccess;
  endpoint: WebhookEndpointOut;
  deliveries: WebhookDeliveryOut[];
  counts: HourCount[];
  now: Date;
  may: { test: boolean; disable: boolean; enable: boolean; delete: boolean; rotate: boolean };
  needsCode: boolean;
  /** How the test event just sent went, if one was. */
  tested: TestedOutcome | null;
}

/** What the endpoint's page says of a test event just sent. */
export type TestedOutcome = Pick<
  EndpointTestOutcome,
  "status" | "status_code" | "duration_ms" | "error"
>;

function deliveryLog(
  deliveries: WebhookDeliveryOut[],
  resend: ((delivery: WebhookDeliveryOut) => Html | string) | null,
): Html {
  if (deliveries.length === 0) return html`<p>No deliveries yet.</p>`;
  return html`<table><caption class="visually-hidden">Latest deliveries, newest first</caption>
<thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Story</th>
<th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last status code</th>
<th scope="col">Last error</th><th scope="col">Next attempt</th>${resend ? html`<th scope="col">Resend</th>` : ""}</tr></thead>
<tbody>${deliveries.map(
    (
      d,
    ) => html`<tr><td><a href="/app/webhook-deliveries/${d.id}">${when(d.created_at)}<span class="visually-hidden"> attempt details</span></a></td><td>${d.event_type}</td>
<td>${d.story_id ? html`<a href="/app/stories/${d.story_id}">Story<span class="visually-hidden"> ${d.story_id}</span></a>` : "—"}</td>
<td><span class="status">${d.status}</span></td><td>${d.attempts}</td><td>${d.last_status_code ?? "—"}</td>
<td>${d.last_error ?? "—"}</td><td>${when(d.next_attempt_at)}</td>${resend ? html`<td>${resend(d)}</td>` : ""}</tr>`,
  )}</tbody></table>`;
}

function actionForm(who: Visitor, id: string, action: string, label: string, secondary = false) {
  return html`<form method="post" action="/app/webhook-endpoints/${id}/${action}" class="inline">${csrfInput(who)}
  <button type="submit"${secondary ? html` class="secondary"` : ""}>${label}</button></form>`;
}

/**
 * What the test event's outcome says, as the command line does: accepted or failed, the HTTP
 * status the receiver answered, the time it took, and the error when there was one.
 */
function testedNotice(tested: NonNullable<EndpointPageData["tested"]>): Html {
  const code = tested.status_code ? `HTTP ${tested.status_code}` : "no HTTP answer";
  const outcome = `Test event ${tested.status}: ${code} in ${tested.duration_ms} ms${
    tested.error ? ` (${tested.error})` : ""
  }.`;
  if (tested.status === "accepted") {
    return notice(
      "info",
      `${outcome} A webhook.test event was sent to this endpoint, once, and your receiver accepted it. It is not recorded as a delivery.`,
    );
  }
  const answer = tested.status_code
    ? `answered ${tested.status_code}`
    : "did not answer with a 2xx";
  return notice(
    "error",
    `${outcome} A webhook.test event was sent to this endpoint, once, and your receiver ${answer}. It is not recorded as a delivery; check the receiver and send another.`,
  );
}

/** /app/webhook-endpoints/{id}: one endpoint, its actions, its deliveries and their chart. */
export function endpointPage(who: Visitor, data: EndpointPageData): Html {
  const { endpoint, may } = data;
  const actions = [
    may.test ? actionForm(who, endpoint.id, "test", "Send test event") : "",
    endpoint.status === "enabled" && may.disable
      ? actionForm(who, endpoint.id, "disable", "Disable", true)
      : "",
    endpoint.status === "disabled" && may.enable
      ? actionForm(who, endpoint.id, "enable", "Enable", true)
      : "",
    may.rotate ? actionForm(who, endpoint.id, "rotate-secret", "Rotate secret", true) : "",
    may.rotate
      ? html`<a href="/app/webhook-endpoints/${endpoint.id}/options">Change rate and order</a>`
      : "",
    may.delete
      ? html`<a href="/app/webhook-endpoints/${endpoint.id}/delete">Delete this endpoint</a>`
      : "",
  ];
  return layout(
    who,
    `Webhook endpoint ${endpoint.url}`,
    html`${data.tested ? testedNotice(data.tested) : ""}
${data.needsCode ? notice("info", FRESH_NOTE) : ""}
<dl>${endpoint.name ? html`<dt>Name</dt><dd>${endpoint.name}</dd>` : ""}
<dt>Status</dt><dd><span class="status">${statusText(endpoint)}</span></dd>
<dt>Events</dt><dd>${endpoint.events.join(", ")}</dd>
<dt>Topics</dt><dd>${endpoint.topics ? endpoint.topics.join(", ") : "every story"}</dd>
<dt>Rate</dt><dd>${rateText(endpoint)}</dd>
<dt>Order</dt><dd>${orderingText(endpoint)}</dd>
<dt>Authentication</dt><dd>${AUTH_CHOICES.find(([value]) => value === (endpoint.auth_type ?? "none"))?.[1] ?? endpoint.auth_type}</dd>
<dt>Secret</dt><dd><code>whsec_…${endpoint.secret_hint}</code> (shown in full once, when added or rotated)${
      endpoint.previous_secret_expires_at &&
      Date.parse(endpoint.previous_secret_expires_at) > data.now.getTime()
        ? html`; the previous secret also signs until ${when(endpoint.previous_secret_expires_at)}`
        : ""
    }</dd>
<dt>Added</dt><dd>${when(endpoint.created_at)}</dd></dl>
<div class="actions">${actions}</div>
<h2>Deliveries in the last 24 hours</h2>
${deliveryChart(data.counts, data.now)}
<h2>Delivery log</h2>
${deliveryLog(
  data.deliveries,
  endpoint.status === "enabled" && may.enable ? (d) => resendButton(who, d) : null,
)}
<p><a href="${listPath(data.access)}">Back to the endpoints</a></p>`,
    { org: navOf(data.access) },
  );
}
