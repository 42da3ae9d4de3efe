import { type Html, html } from "@newsroom/shared/html";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { WebhookAttemptRow } from "../../webhook-endpoints/attempts.ts";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "../../webhook-endpoints/model.ts";
import type { Visitor } from "../kit.ts";
import { layout, type OrgNav } from "../layout.ts";
import { resendButton } from "./webhook-recover.ts";

const navOf = (access: OrgAccess): OrgNav => ({
  slug: access.organization.slug,
  name: access.organization.name,
  current: "webhook-endpoints",
  role: access.role,
});

const when = (at: Date | null) =>
  at
    ? html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 19).replace("T", " ")} UTC</time>`
    : "—";

export interface DeliveryPageData {
  access: OrgAccess;
  endpoint: WebhookEndpointRow;
  delivery: WebhookDeliveryRow;
  attempts: WebhookAttemptRow[];
  mayResend: boolean;
}

function attemptsTable(attempts: WebhookAttemptRow[]): Html {
  if (attempts.length === 0) return html`<p>No attempts recorded in the last 30 days.</p>`;
  return html`<table><caption class="visually-hidden">Attempts, newest first</caption>
<thead><tr><th scope="col">Attempt</th><th scope="col">Time</th><th scope="col">HTTP status</th>
<th scope="col">Duration</th><th scope="col">Reason</th><th scope="col">Answer (first 1 KiB)</th></tr></thead>
<tbody>${attempts.map(
    (a) => html`<tr><td>${a.attempt}</td><td>${when(a.at)}</td><td>${a.statusCode ?? "—"}</td>
<td>${a.inFlight ? "—" : `${a.durationMs} ms`}</td><td>${a.inFlight ? "Under way: sent, no answer yet" : (a.reason ?? "—")}</td>
<td>${a.responseBody === null ? "—" : html`<pre class="answer">${a.responseBody}</pre>`}</td></tr>`,
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
    `Delivery of ${delivery.eventType}`,
    html`<dl><dt>Endpoint</dt><dd><a href="/app/webhook-endpoints/${endpoint.id}">${endpoint.url}</a></dd>
<dt>Event id (webhook-id)</dt><dd><code>${delivery.eventId}</code></dd>
<dt>Status</dt><dd><span class="status">${delivery.status}</span></dd>
<dt>Attempts in this series</dt><dd>${delivery.attempts}</dd>
<dt>Last HTTP status</dt><dd>${delivery.lastStatusCode ?? "—"}</dd>
<dt>Last duration</dt><dd>${delivery.lastDurationMs === null ? "—" : `${delivery.lastDurationMs} ms`}</dd>
<dt>Created</dt><dd>${when(delivery.createdAt)}</dd></dl>
${data.mayResend ? html`<div class="actions">${resendButton(who, delivery)}</div>` : ""}
<h2>Attempts</h2>
${attemptsTable(data.attempts)}
<p><a href="/app/webhook-endpoints/${endpoint.id}">Back to the endpoint</a></p>`,
    { org: navOf(data.access) },
  );
}
