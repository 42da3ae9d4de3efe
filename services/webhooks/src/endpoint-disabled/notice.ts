import type { Queryable } from "@newsroom/shared/db/index";
import { organizations, workspaceMemberships, workspacePeople } from "@newsroom/shared/db/schema";
import { log } from "@newsroom/shared/log";
import type { Mailer, MailMessage } from "@newsroom/shared/mailer";
import { and, asc, eq, inArray } from "drizzle-orm";

/** What the email says about the endpoint that was disabled. */
export interface DisabledEndpoint {
  organizationId: string;
  id: string;
  url: string;
  /** The reason of the last failed attempt (`last_error`: never an address). */
  lastError: string | null;
}

export interface DisabledNoticeDeps {
  db: Queryable;
  /** Null when email is not configured: the disabling is only logged. */
  mailer: Mailer | null;
  /** The workspace web app's public base (APP_URL), without a trailing slash. */
  appUrl: string;
}

/**
 * The addresses of the organization's owners and admins: they may turn the endpoint back on.
 * Read from the workspace's membership tables (the webhooks service never writes them).
 */
export async function ownerAndAdminAddresses(db: Queryable, organizationId: string) {
  const rows = await db
    .select({ email: workspacePeople.email })
    .from(workspaceMemberships)
    .innerJoin(workspacePeople, eq(workspacePeople.id, workspaceMemberships.personId))
    .where(
      and(
        eq(workspaceMemberships.organizationId, organizationId),
        inArray(workspaceMemberships.role, ["owner", "admin"]),
      ),
    )
    .orderBy(asc(workspacePeople.email));
  return rows.map((row) => row.email);
}

/** The email: which endpoint, why it was disabled, and how to turn it back on. */
export function disabledEndpointEmail(
  to: string[],
  organizationName: string,
  endpoint: DisabledEndpoint,
  failedInARow: number,
  appUrl: string,
): MailMessage {
  const page = `${appUrl}/webhook-endpoints/${endpoint.id}`;
  const text = `We disabled a webhook endpoint of ${organizationName}.

Endpoint: ${endpoint.url}
Why: ${failedInARow} deliveries in a row failed after every retry${endpoint.lastError ? ` (the last attempt: ${endpoint.lastError})` : ""}.

Nothing more is sent to it until it is enabled again; events meanwhile are not queued for it.

To recover:
1. Check that the receiver answers a signed POST with a 2xx within 10 seconds.
2. Open the endpoint's page and send a test event: ${page}
3. Enable the endpoint there, then recover the failed deliveries since it went down.

You receive this because you are an owner or admin of ${organizationName}.
`;
  return { to, subject: `Webhook endpoint disabled: ${endpoint.url}`, text };
}

/**
 * Emails the organization's owners and admins that this endpoint was disabled for failing. Runs
 * after the disabling committed, once per disabling (the transaction that disabled it marked
 * `disabled_notified_at`); a failure to send is logged, never thrown.
 */
export async function notifyEndpointDisabled(
  deps: DisabledNoticeDeps,
  endpoint: DisabledEndpoint,
  failedInARow: number,
): Promise<boolean> {
  try {
    if (!deps.mailer) {
      log.warn("webhook endpoint disabled; email not configured, nobody was told", {
        endpoint_id: endpoint.id,
      });
      return false;
    }
    const [organization] = await deps.db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, endpoint.organizationId));
    const to = await ownerAndAdminAddresses(deps.db, endpoint.organizationId);
    if (!organization || to.length === 0) return false;
    await deps.mailer.send(
      disabledEndpointEmail(to, organization.name, endpoint, failedInARow, deps.appUrl),
    );
    return true;
  } catch (error) {
    log.error("the disabled-endpoint email could not be sent", {
      endpoint_id: endpoint.id,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}
