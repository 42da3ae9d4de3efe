import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import { auditEvents, organizations } from "@newsroom/shared/db/schema";
import { EVENT, type WebhookEndpointDisabledEvent } from "@newsroom/shared/events";
import { html } from "@newsroom/shared/html";
import { isUuid } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import type { Mailer, MailMessage } from "@newsroom/shared/mailer";
import { eq } from "drizzle-orm";
import { ALERT_RECIPIENTS_NOTE, alertRecipients } from "./alert-recipients.ts";

/** The durable consumer of `webhook_endpoint.disabled`: every replica shares it. */
export const ENDPOINT_DISABLED_CONSUMER = "workspace-endpoint-disabled";

export interface DisabledNoticeDeps {
  db: Db;
  /** Null when email is not configured: the disabling is only audited and logged. */
  mailer: Mailer | null;
  /** The web app's public base (APP_URL), without a trailing slash. */
  appUrl: string;
}

type Disabled = WebhookEndpointDisabledEvent["data"];

/**
 * Hears the webhooks service disable an endpoint for failing: records it in the organization's
 * audit trail, under the event's id, and emails the people who own the endpoint (`alertRecipients`). A repeated
 * event (the bus delivers at least once, the webhooks service may publish again) finds its audit
 * row and sends nothing: one email per disabling.
 */
export function startEndpointDisabledConsumer(
  deps: DisabledNoticeDeps,
  bus: EventBus,
): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      if (event.type !== EVENT.webhookEndpointDisabled) return;
      if (!isWellFormedEndpointNotice(event)) {
        log.warn("dropping a malformed webhook_endpoint.disabled event", { event_id: event.id });
        return;
      }
      if (await auditNoticeOnce(deps.db, event)) await notifyEndpointDisabled(deps, event.data);
    },
    { durable: ENDPOINT_DISABLED_CONSUMER, types: [EVENT.webhookEndpointDisabled] },
  );
}

/** The fields every endpoint notice (disabled, failing, exhausted) must carry to be acted on. */
export function isWellFormedEndpointNotice(event: {
  id: string;
  data: { organization_id: string; endpoint_id: string; url: string };
}): boolean {
  const data = event.data as Partial<Disabled> | undefined;
  return (
    isUuid(event.id) &&
    typeof data?.organization_id === "string" &&
    isUuid(data.organization_id) &&
    typeof data.endpoint_id === "string" &&
    isUuid(data.endpoint_id) &&
    typeof data.url === "string"
  );
}

/**
 * The audit row of an endpoint notice, under the event's id; false when the event was recorded
 * already (the bus delivers at least once): the caller then sends nothing.
 */
export async function auditNoticeOnce(
  db: Db,
  event: {
    id: string;
    type: string;
    created_at: string;
    data: { organization_id: string; endpoint_id: string };
  },
): Promise<boolean> {
  const rows = await db
    .insert(auditEvents)
    .values({
      id: event.id,
      organizationId: event.data.organization_id,
      action: event.type,
      subjectId: event.data.endpoint_id,
      actor: "webhooks",
      createdAt: new Date(event.created_at),
    })
    .onConflictDoNothing({ target: auditEvents.id })
    .returning({ id: auditEvents.id });
  return rows.length > 0;
}

/** The email: which endpoint, why it was disabled, and how to turn it back on. */
export function disabledEndpointEmail(
  to: string[],
  organizationName: string,
  endpoint: Disabled,
  appUrl: string,
): MailMessage {
  const page = `${appUrl}/webhook-endpoints/${endpoint.endpoint_id}`;
  const why = endpoint.receiver_gone
    ? "the receiver answered 410 Gone, which asks senders to stop."
    : `${endpoint.failed_in_a_row} deliveries in a row failed after every retry${endpoint.last_error ? ` (the last attempt: ${endpoint.last_error})` : ""}.`;
  const text = `We disabled a webhook endpoint of ${organizationName}.

Endpoint: ${endpoint.url}
Why: ${why}

Nothing more is sent to it until it is enabled again; events meanwhile are not queued for it.

To recover:
1. Check that the receiver answers a signed POST with a 2xx within 10 seconds.
2. Open the endpoint's page and send a test event: ${page}
3. Enable the endpoint there, then recover the failed deliveries since it went down.

${ALERT_RECIPIENTS_NOTE(organizationName)}
`;
  const body = html`<p>We disabled a webhook endpoint of ${organizationName}.</p>
<p>Endpoint: <code>${endpoint.url}</code><br>Why: ${why}</p>
<p>Nothing more is sent to it until it is enabled again; events meanwhile are not queued for it.</p>
<p>To recover:</p>
<ol><li>Check that the receiver answers a signed POST with a 2xx within 10 seconds.</li>
<li>Open <a href="${page}">the endpoint's page</a> and send a test event.</li>
<li>Enable the endpoint there, then recover the failed deliveries since it went down.</li></ol>
<p>${ALERT_RECIPIENTS_NOTE(organizationName)}</p>
`;
  return {
    to,
    subject: `Webhook endpoint disabled: ${endpoint.url}`,
    text,
    html: body.value,
  };
}

/** Emails the organization's owners and admins; a failure to send is logged, never thrown. */
async function notifyEndpointDisabled(deps: DisabledNoticeDeps, endpoint: Disabled) {
  try {
    if (!deps.mailer) {
      log.warn("webhook endpoint disabled; email not configured, nobody was told", {
        endpoint_id: endpoint.endpoint_id,
      });
      return;
    }
    const [organization] = await deps.db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, endpoint.organization_id));
    const to = await alertRecipients(deps.db, endpoint.organization_id, endpoint.endpoint_id);
    if (!organization || to.length === 0) return;
    await deps.mailer.send(disabledEndpointEmail(to, organization.name, endpoint, deps.appUrl));
  } catch (error) {
    log.error("the disabled-endpoint email could not be sent", {
      endpoint_id: endpoint.endpoint_id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
