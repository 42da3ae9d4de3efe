import { type Html, html } from "@newsroom/shared/html";
import type { WebhookEndpointOut } from "@newsroom/shared/records";
import {
  type SignatureVerdict,
  TIMESTAMP_TOLERANCE_SECONDS,
} from "@newsroom/shared/webhook-endpoint-commands";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { CatalogEntry } from "../../webhook-catalog/catalog.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, layout, notice } from "../layout.ts";

export interface VerifyFormState {
  endpointId?: string;
  headers?: string;
  body?: string;
  /** A field left empty or an endpoint not found: said beside the form. */
  problem?: string;
  verdict?: SignatureVerdict;
}

export interface CatalogPageData {
  access: OrgAccess;
  entries: CatalogEntry[];
  endpoints: WebhookEndpointOut[];
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

function minutes(seconds: number): string {
  const whole = Math.round(Math.abs(seconds) / 60);
  return `${whole} minute${whole === 1 ? "" : "s"}`;
}

/** What each verdict tells the person, in words; `valid` alone is not an error. */
function verdictNotice(verdict: SignatureVerdict): Html {
  const tolerance = `${TIMESTAMP_TOLERANCE_SECONDS / 60} minutes`;
  const text = {
    valid: `Valid: a signature matches this endpoint's secret and the timestamp is within ${tolerance} of now.`,
    missing_headers:
      verdict.kind === "missing_headers"
        ? `Headers missing or malformed: ${verdict.missing.join(", ")}. Paste the request's headers, one "name: value" a line.`
        : "",
    timestamp_outside:
      verdict.kind === "timestamp_outside"
        ? `Timestamp too ${verdict.secondsOff > 0 ? "old" : "far in the future"}: the signature matches, but webhook-timestamp is ${minutes(verdict.secondsOff)} ${verdict.secondsOff > 0 ? "ago" : "ahead"}, outside ±${tolerance}. Receivers reject it as a possible replay; check the receiving server's clock, or send a new test event.`
        : "",
    body_re_encoded:
      "Body re-encoded: a signature matches the body as compact JSON, but not the body as pasted. Verify the raw bytes you received, before parsing or re-serializing the JSON.",
    wrong_secret:
      "Wrong secret: no signature matches this endpoint's secret (nor, during a rotation, its previous one). Check which endpoint's secret the receiver uses, and that the body is exactly what was received.",
  }[verdict.kind];
  const kind = verdict.kind === "valid" ? "info" : "error";
  return html`<div data-verdict="${verdict.kind}">${notice(kind, text)}</div>`;
}

function verifyForm(who: Visitor, data: CatalogPageData, state: VerifyFormState): Html {
  const action = `/app/orgs/${encodeURIComponent(data.access.organization.slug)}/webhook-catalog`;
  if (data.endpoints.length === 0) {
    return html`<p>Add a webhook endpoint first: the check uses its secret.</p>`;
  }
  return html`${state.verdict ? verdictNotice(state.verdict) : ""}
${state.problem ? notice("error", state.problem) : ""}
<form method="post" action="${action}#verify" novalidate>${csrfInput(who)}
  <div class="field"><label for="field-endpoint">Endpoint whose secret signed it</label>
  <select id="field-endpoint" name="endpoint">${data.endpoints.map(
    (endpoint) =>
      html`<option value="${endpoint.id}"${endpoint.id === state.endpointId ? html` selected` : ""}>${endpoint.url} (whsec_…${endpoint.secret_hint})</option>`,
  )}</select></div>
  <div class="field"><label for="field-headers">Headers</label>
  <p class="hint" id="field-headers-hint">One "name: value" a line; webhook-id, webhook-timestamp and webhook-signature are read.</p>
  <textarea id="field-headers" name="headers" rows="5" aria-describedby="field-headers-hint" spellcheck="false">${state.headers ?? ""}</textarea></div>
  <div class="field"><label for="field-body">Body</label>
  <p class="hint" id="field-body-hint">Exactly as received.</p>
  <textarea id="field-body" name="body" rows="8" aria-describedby="field-body-hint" spellcheck="false">${state.body ?? ""}</textarea></div>
  <button type="submit">Check the signature</button>
</form>`;
}

/**
 * /app/orgs/{org}/webhook-catalog: each event type with its JSON schema (from the OpenAPI
 * document's `webhooks` section) and a sample body, and a form that checks a pasted request's
 * signature against one of the organization's endpoints.
 */
export function webhookCatalogPage(
  who: Visitor,
  data: CatalogPageData,
  state: VerifyFormState = {},
): Html {
  const events = data.entries.map(
    (entry) => html`<section aria-labelledby="event-${entry.type}">
<h3 id="event-${entry.type}"><code>${entry.type}</code></h3>
<p>${entry.summary}</p>
<details><summary>Schema of <code>${entry.type}</code></summary>
<pre tabindex="0"><code>${pretty(entry.schema)}</code></pre></details>
<details><summary>Sample body of <code>${entry.type}</code></summary>
<pre tabindex="0"><code>${pretty(entry.sample)}</code></pre></details>
</section>`,
  );
  return layout(
    who,
    "Webhook payload catalog",
    html`<p>Every request carries <code>webhook-id</code> (the event id: deduplicate on it),
<code>webhook-timestamp</code> and <code>webhook-signature</code> (Standard Webhooks). A story
event's <code>data.sequence</code> rises with each event of that story: drop an event whose
sequence is lower than one you already handled.</p>
<section aria-labelledby="verify"><h2 id="verify">Check a signature</h2>
${verifyForm(who, data, state)}</section>
<section aria-labelledby="events"><h2 id="events">Event types</h2>${events}</section>`,
    {
      org: {
        slug: data.access.organization.slug,
        name: data.access.organization.name,
        current: "webhook-endpoints",
        role: data.access.role,
      },
    },
  );
}
