import { type Html, html } from "@newsroom/shared/html";
import type { WebhookDeliveryOut, WebhookEndpointOut } from "@newsroom/shared/records";
import { RECOVER_MAX_DAYS } from "@newsroom/shared/webhook-endpoint-commands";
import type { OrgAccess } from "../../identity/members/access.ts";
import type { Visitor } from "../kit.ts";
import { csrfInput, field, layout, notice, type OrgNav } from "../layout.ts";

const navOf = (access: OrgAccess): OrgNav => ({
  slug: access.organization.slug,
  name: access.organization.name,
  current: "webhook-endpoints",
  role: access.role,
});

/** A time as the `datetime-local` field shows it, in UTC: `2026-05-01T09:30`. */
export function minuteOf(at: Date): string {
  return at.toISOString().slice(0, 16);
}

/** The Resend button of one delivery in the endpoint's delivery log (failed or delivered). */
export function resendButton(who: Visitor, delivery: WebhookDeliveryOut): Html | string {
  if (delivery.status === "pending") return "";
  return html`<form method="post" action="/app/webhook-deliveries/${delivery.id}/resend" class="inline">${csrfInput(who)}
  <button type="submit" class="secondary">Resend<span class="visually-hidden"> ${delivery.event_type} of ${minuteOf(new Date(delivery.created_at))}</span></button></form>`;
}

export interface RecoverPageData {
  access: OrgAccess;
  endpoint: WebhookEndpointOut;
  /** The field's value (UTC, to the minute). */
  since: string;
  error?: string;
  /** The endpoint was just enabled. */
  enabled?: boolean;
  /** How many failed deliveries were just resent. */
  resent?: number;
}

/**
 * /app/webhook-endpoints/{id}/recover: resend the failed deliveries since a time, offered
 * after an endpoint is enabled again (the default: when it was disabled).
 */
export function recoverPage(who: Visitor, data: RecoverPageData): Html {
  const back = `/app/webhook-endpoints/${data.endpoint.id}`;
  const done =
    data.resent === undefined
      ? ""
      : notice(
          "info",
          data.resent === 0
            ? "No failed deliveries since then: nothing was resent."
            : `${data.resent} failed ${data.resent === 1 ? "delivery is" : "deliveries are"} being sent again, with their original webhook-id.`,
        );
  return layout(
    who,
    "Resend failed deliveries",
    html`${data.enabled ? notice("info", `The endpoint ${data.endpoint.url} is enabled again.`) : ""}${done}
<p>Deliveries that failed while <strong>${data.endpoint.url}</strong> was failing or disabled can be
sent again, each with its original <code>webhook-id</code> so your receiver deduplicates. Pressing
twice sends nothing twice. Recovery reaches back at most ${RECOVER_MAX_DAYS} days.</p>
<form method="post" action="${back}/recover" novalidate>${csrfInput(who)}
  ${field({
    name: "since",
    label: "Resend failed deliveries since (UTC)",
    type: "datetime-local",
    value: data.since,
    error: data.error,
    required: true,
  })}
  <button type="submit">Resend failed deliveries</button>
  <a class="button secondary" href="${back}">Back to the endpoint</a>
</form>`,
    { org: navOf(data.access) },
  );
}
