import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import { organizations } from "@newsroom/shared/db/schema";
import {
  EVENT,
  type WebhookDeliveryExhaustedEvent,
  type WebhookEndpointFailingEvent,
} from "@newsroom/shared/events";
import { html } from "@newsroom/shared/html";
import { log } from "@newsroom/shared/log";
import type { MailMessage } from "@newsroom/shared/mailer";
import { eq } from "drizzle-orm";
import { ALERT_RECIPIENTS_NOTE, alertRecipients } from "./alert-recipients.ts";
import {
  auditNoticeOnce,
  type DisabledNoticeDeps,
  isWellFormedEndpointNotice,
} from "./disabled-notice.ts";

/** The durable consumer of the webhooks service's alerts: every replica shares it. */
export const ENDPOINT_ALERTS_CONSUMER = "workspace-endpoint-alerts";

type AlertEvent = WebhookEndpointFailingEvent | WebhookDeliveryExhaustedEvent;

/**
 * Hears the webhooks service's alerts (`webhook_endpoint.failing`, `webhook_delivery.exhausted`):
 * records each in the organization's audit trail under the event's id, and emails the people who
 * own the endpoint. A repeated event finds its audit row and sends nothing: one email per alert.
 * (The disabling has its own consumer, `startEndpointDisabledConsumer`.)
 */
export function startEndpointAlertConsumer(
  deps: DisabledNoticeDeps,
  bus: EventBus,
): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      if (
        event.type !== EVENT.webhookEndpointFailing &&
        event.type !== EVENT.webhookDeliveryExhausted
      )
        return;
      if (!isWellFormedEndpointNotice(event)) {
        log.warn("dropping a malformed webhook alert event", { event_id: event.id });
        return;
      }
      if (await auditNoticeOnce(deps.db, event)) await notify(deps, event);
    },
    {
      durable: ENDPOINT_ALERTS_CONSUMER,
      types: [EVENT.webhookEndpointFailing, EVENT.webhookDeliveryExhausted],
    },
  );
}

/** The email of a `webhook_endpoint.failing` alert: how close the endpoint is to being disabled. */
export function failingEndpointEmail(
  to: string[],
  organizationName: string,
  alert: WebhookEndpointFailingEvent["data"],
  appUrl: string,
): MailMessage {
  const page = `${appUrl}/webhook-endpoints/${alert.endpoint_id}`;
  const why = `${alert.failed_attempts_in_a_row} attempts in a row failed${alert.last_error ? ` (the last: ${alert.last_error})` : ""}: ${alert.threshold_percent}% of the ${alert.disable_threshold_attempts} attempts that three failed deliveries make before the endpoint is disabled.`;
  const intro = `A webhook endpoint of ${organizationName} is failing.`;
  const next =
    "It is disabled when three deliveries in a row fail after every retry. Check that the receiver answers a signed POST with a 2xx within 10 seconds; the endpoint's page sends a test event and lists the failed attempts.";
  return {
    to,
    subject: `Webhook endpoint failing (${alert.threshold_percent}%): ${alert.url}`,
    text: `${intro}

Endpoint: ${alert.url}
Failing: ${why}

${next}
${page}

${ALERT_RECIPIENTS_NOTE(organizationName)}
`,
    html: html`<p>${intro}</p>
<p>Endpoint: <code>${alert.url}</code><br>Failing: ${why}</p>
<p>${next} <a href="${page}">The endpoint's page</a>.</p>
<p>${ALERT_RECIPIENTS_NOTE(organizationName)}</p>
`.value,
  };
}

/** The email of a `webhook_delivery.exhausted` alert: which event it could not deliver. */
export function exhaustedDeliveryEmail(
  to: string[],
  organizationName: string,
  alert: WebhookDeliveryExhaustedEvent["data"],
  appUrl: string,
): MailMessage {
  const delivery = `${appUrl}/webhook-deliveries/${alert.delivery_id}`;
  const why = `${alert.attempts} attempts failed${alert.last_error ? ` (the last: ${alert.last_error})` : ""}.`;
  const intro = `A webhook delivery of ${organizationName} failed after every retry.`;
  const next =
    "Nothing more is tried for this event. Once the receiver is fixed, resend it from the delivery's page (further failures of this run are not emailed one by one).";
  return {
    to,
    subject: `Webhook delivery failed: ${alert.event_type} to ${alert.url}`,
    text: `${intro}

Endpoint: ${alert.url}
Event: ${alert.event_type} (${alert.event_id})
Why: ${why}

${next}
${delivery}

${ALERT_RECIPIENTS_NOTE(organizationName)}
`,
    html: html`<p>${intro}</p>
<p>Endpoint: <code>${alert.url}</code><br>Event: ${alert.event_type} (<code>${alert.event_id}</code>)<br>Why: ${why}</p>
<p>${next} <a href="${delivery}">The delivery's page</a>.</p>
<p>${ALERT_RECIPIENTS_NOTE(organizationName)}</p>
`.value,
  };
}

/** Emails the endpoint's people; a failure to send is logged, never thrown. */
async function notify(deps: DisabledNoticeDeps, event: AlertEvent) {
  const { organization_id: organizationId, endpoint_id: endpointId } = event.data;
  try {
    if (!deps.mailer) {
      log.warn("webhook alert; email not configured, nobody was told", {
        type: event.type,
        endpoint_id: endpointId,
      });
      return;
    }
    const [organization] = await deps.db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, organizationId));
    const to = await alertRecipients(deps.db, organizationId, endpointId);
    if (!organization || to.length === 0) return;
    await deps.mailer.send(
      event.type === EVENT.webhookEndpointFailing
        ? failingEndpointEmail(to, organization.name, event.data, deps.appUrl)
        : exhaustedDeliveryEmail(to, organization.name, event.data, deps.appUrl),
    );
  } catch (error) {
    log.error("a webhook alert email could not be sent", {
      type: event.type,
      endpoint_id: endpointId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
