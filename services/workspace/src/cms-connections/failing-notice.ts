import type { EventBus, Subscription } from "@newsroom/shared/bus/index";
import {
  auditEvents,
  organizations,
  workspaceMemberships,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { type CmsConnectionFailingEvent, EVENT } from "@newsroom/shared/events";
import { html } from "@newsroom/shared/html";
import { isUuid } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import type { MailMessage } from "@newsroom/shared/mailer";
import { and, eq } from "drizzle-orm";
import type { DisabledNoticeDeps } from "../webhook-endpoints/disabled-notice.ts";

/** The durable consumer of `cms_connection.failing`: every replica shares it. */
export const CMS_FAILING_CONSUMER = "workspace-cms-failing";

type Failing = CmsConnectionFailingEvent["data"];

/**
 * Hears the webhooks service mark a CMS connection failing: records it in the organization's
 * audit trail under the event's id, and emails the organization's owners. A repeated event finds
 * its audit row and sends nothing: one email per run of failures.
 */
export function startCmsFailingConsumer(
  deps: DisabledNoticeDeps,
  bus: EventBus,
): Promise<Subscription> {
  return bus.subscribe(
    async (event) => {
      if (event.type !== EVENT.cmsConnectionFailing) return;
      const data = event.data as Partial<Failing> | undefined;
      if (
        !isUuid(event.id) ||
        !isUuid(String(data?.organization_id)) ||
        !isUuid(String(data?.connection_id)) ||
        typeof data?.url !== "string"
      ) {
        log.warn("dropping a malformed cms_connection.failing event", { event_id: event.id });
        return;
      }
      const rows = await deps.db
        .insert(auditEvents)
        .values({
          id: event.id,
          organizationId: event.data.organization_id,
          action: event.type,
          subjectId: event.data.connection_id,
          actor: "webhooks",
          createdAt: new Date(event.created_at),
        })
        .onConflictDoNothing({ target: auditEvents.id })
        .returning({ id: auditEvents.id });
      if (rows.length > 0) await notify(deps, event.data);
    },
    { durable: CMS_FAILING_CONSUMER, types: [EVENT.cmsConnectionFailing] },
  );
}

/** The email: which site, what keeps going wrong, where to check it. */
export function failingCmsEmail(
  to: string[],
  organizationName: string,
  failing: Failing,
  orgSlug: string,
  appUrl: string,
): MailMessage {
  const page = `${appUrl}/orgs/${encodeURIComponent(orgSlug)}/cms-connections`;
  const why = `${failing.failed_in_a_row} writes in a row failed${failing.last_error ? ` (the last: ${failing.last_error})` : ""}.`;
  const intro = `Published stories of ${organizationName} are not reaching ${failing.url}.`;
  const next =
    "Stories are still published in the newsroom. Open the connections page and use Check connection: it says what is wrong in plain words (the site unreachable, the credentials refused, a missing right). Each story's page lists its failed writes.";
  return {
    to,
    subject: `CMS connection failing: ${failing.url}`,
    text: `${intro}\n\nWhy: ${why}\n\n${next}\n${page}\n\nYou receive this as an owner of ${organizationName}.\n`,
    html: html`<p>${intro}</p>
<p>Why: ${why}</p>
<p>${next}</p>
<p><a href="${page}">The organization's CMS connections</a></p>
<p>You receive this as an owner of ${organizationName}.</p>
`.value,
  };
}

async function notify(deps: DisabledNoticeDeps, failing: Failing) {
  try {
    if (!deps.mailer) {
      log.warn("CMS connection failing; email not configured, nobody was told", {
        connection_id: failing.connection_id,
      });
      return;
    }
    const [organization] = await deps.db
      .select({ name: organizations.name, slug: organizations.slug })
      .from(organizations)
      .where(eq(organizations.id, failing.organization_id));
    const owners = await deps.db
      .select({ email: workspacePeople.email })
      .from(workspaceMemberships)
      .innerJoin(workspacePeople, eq(workspacePeople.id, workspaceMemberships.personId))
      .where(
        and(
          eq(workspaceMemberships.organizationId, failing.organization_id),
          eq(workspaceMemberships.role, "owner"),
        ),
      );
    const to = owners.map((owner) => owner.email);
    if (!organization || to.length === 0) return;
    await deps.mailer.send(
      failingCmsEmail(to, organization.name, failing, organization.slug, deps.appUrl),
    );
  } catch (error) {
    log.warn("telling the owners of a failing CMS connection failed", {
      connection_id: failing.connection_id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
