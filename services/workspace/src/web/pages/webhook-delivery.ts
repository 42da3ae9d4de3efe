import { type Html, html } from "@newsroom/shared/html";
import type { WebhookDeliveryOut, WebhookEndpointOut } from "@newsroom/shared/records";
import type { WebhookAttemptOut } from "@newsroom/shared/webhook-endpoint-commands";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { Visitor } from "../kit.ts";
import { layout, type OrgNav } from "../layout.ts";
import { resendButton } from "./webhook-recover.ts";

const navOf = (access: OrgAccess): OrgNav => ({
  slug: access.organization.slug,
  name: access.organization.name,
  current: "webhook-endpoints",
  role: access.role,
});

/** A record's date-time (ISO 8601, UTC) as a `<time>`, to the second. */
const when = (at: string | null) =>
  at ? html`<time datetime="${at}">${at.slice(0, 19).replace("T", " ")} UTC</time>` : "—";

export interface DeliveryPageData {
  access: OrgAccess;
  endpoint: WebhookEndpointOut;
  delivery: WebhookDeliveryOut;
  attempts: WebhookAttemptOut[];
  mayResend: boolean;
}

function attemptsTable(attempts: WebhookAttemptOut[]): Html {
  if (attempts.length === 0) return html`<p>No attempts recorded in the last 30 days.</p>`;
  return html`<table><caption class="visually-hidden">Attempts, newest first</caption>
<thead><tr><th scope="col">Attempt</th><th scope="col">Time</th><th scope="col">HTTP status</th>
<th scope="col">Duration</th><th scope="col">Reason</th><th scope="col">Answer (first 1 KiB)</th></tr></thead>
<tbody>${attempts.map(
    (a) => html`<tr><td>${a.attempt}</td><td>${when(a.at)}</td><td>${a.status_code ?? "—"}</td>
<td>${a.in_flight ? "—" : `${a.duration_ms} ms`}</td><td>${a.in_flight ? "Under way: sent, no answer yet" : (a.reason ?? "—")}</td>
<td>${a.response_body === null ? "—" : html`<pre class="answer">${a.response_body}</pre>`}</td></tr>`,
  )}</tbody></table>`;
}

/**
 * /app/webhook-deliveries/{id}: one delivery and each attempt's time, HTTP status, duration,
 * reason and the first 1 KiB of the receiver's answer (never the request's headers or secret).
 */
export function deliveryPage(who: Visitor, data: DeliveryPageData): Html {
  const { delivery, endpoint } = data;
  return layout(
    who,
    `Delivery of ${delivery.event_type}`,
    html`<dl><dt>Endpoint</dt><dd><a href="/app/webhook-endpoints/${endpoint.id}">${endpoint.url}</a></dd>
<dt>Event id (webhook-id)</dt><dd><code>${delivery.event_id}</code></dd>
<dt>Status</dt><dd><span class="status">${delivery.status}</span></dd>
<dt>Attempts in this series</dt><dd>${delivery.attempts}</dd>
<dt>Last HTTP status</dt><dd>${delivery.last_status_code ?? "—"}</dd>
<dt>Last duration</dt><dd>${delivery.last_duration_ms === null ? "—" : `${delivery.last_duration_ms} ms`}</dd>
<dt>Created</dt><dd>${when(delivery.created_at)}</dd></dl>
${data.mayResend ? html`<div class="actions">${resendButton(who, delivery)}</div>` : ""}
<h2>Attempts</h2>
${attemptsTable(data.attempts)}
<p><a href="/app/webhook-endpoints/${endpoint.id}">Back to the endpoint</a></p>`,
    { org: navOf(data.access) },
  );
}
