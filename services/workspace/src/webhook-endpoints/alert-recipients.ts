import type { Queryable } from "@newsroom/shared/db/index";
import { auditEvents, workspaceMemberships, workspacePeople } from "@newsroom/shared/db/schema";
import { isUuid } from "@newsroom/shared/ids";
import { and, asc, eq, inArray } from "drizzle-orm";
import { personActor } from "../audit.ts";

/**
 * Who hears about an endpoint's trouble (failing, a delivery exhausted, disabled): the
 * organization's owners and admins, who may test, enable and recover it, and the person who
 * created it (from its `webhook_endpoint.created` audit row, when a person did) while they are
 * still a member of the organization. Each address once, sorted.
 */
export async function alertRecipients(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<string[]> {
  const [owners, creator] = await Promise.all([
    ownerAndAdminAddresses(db, organizationId),
    creatorAddress(db, organizationId, endpointId),
  ]);
  return [...new Set([...owners, ...(creator ? [creator] : [])])].sort();
}

/** Why a recipient got an endpoint's alert: the closing line of each email. */
export const ALERT_RECIPIENTS_NOTE = (organizationName: string) =>
  `You receive this as an owner or admin of ${organizationName}, or as the person who created the endpoint.`;

/** The addresses of the organization's owners and admins: they may turn the endpoint back on. */
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

/** The address of the member who created the endpoint in the web app, if any. */
async function creatorAddress(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<string | null> {
  const [created] = await db
    .select({ actor: auditEvents.actor })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.organizationId, organizationId),
        eq(auditEvents.action, "webhook_endpoint.created"),
        eq(auditEvents.subjectId, endpointId),
      ),
    )
    .limit(1);
  const personId = created?.actor.slice(personActor("").length) ?? "";
  if (!created?.actor.startsWith(personActor("")) || !isUuid(personId)) return null;
  const [member] = await db
    .select({ email: workspacePeople.email })
    .from(workspaceMemberships)
    .innerJoin(workspacePeople, eq(workspacePeople.id, workspaceMemberships.personId))
    .where(
      and(
        eq(workspaceMemberships.organizationId, organizationId),
        eq(workspaceMemberships.personId, personId),
      ),
    );
  return member?.email ?? null;
}
