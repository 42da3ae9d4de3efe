import type { Queryable } from "@newsroom/shared/db/index";
import {
  apiKeys,
  auditEvents,
  oauthClients,
  stories,
  storyVersions,
  workspacePeople,
} from "@newsroom/shared/db/schema";
import { isUuid } from "@newsroom/shared/ids";
import { and, desc, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";

/**
 * Where a page of the audit log ended: the last event's time in microseconds (as the database
 * holds it: a JavaScript date would round to milliseconds and skip or repeat events) and id.
 */
export interface AuditPosition {
  micros: string;
  id: string;
}

/** `before` of the audit page's address: `{micros}_{id}`; anything else is no position. */
export function parseAuditCursor(text: string | undefined): AuditPosition | null {
  const match = /^(\d{1,19})_([0-9a-f-]{36})$/.exec(text ?? "");
  return match && isUuid(match[2]!) ? { micros: match[1]!, id: match[2]! } : null;
}

export function auditCursor(position: AuditPosition): string {
  return `${position.micros}_${position.id}`;
}

const actorPerson = alias(workspacePeople, "actor_person");
const subjectPerson = alias(workspacePeople, "subject_person");
const micros = sql<string>`floor(extract(epoch from ${auditEvents.createdAt}) * 1000000)::bigint::text`;

/**
 * A page of an organization's audit events, newest first, with the addresses of the people who
 * acted (actor `person:{id}`) and of people who were the subject (member changes), and the
 * names people know a subject key (`armk_test_…abcd`) or story (its title) by.
 */
export async function auditEventsOf(
  db: Queryable,
  organizationId: string,
  options: { before: AuditPosition | null; limit: number },
) {
  const rows = await db
    .select({
      id: auditEvents.id,
      action: auditEvents.action,
      subjectId: auditEvents.subjectId,
      actor: auditEvents.actor,
      createdAt: auditEvents.createdAt,
      micros,
      actorEmail: actorPerson.email,
      subjectEmail: subjectPerson.email,
      subjectKey: sql<string | null>`${apiKeys.prefix} || '…' || ${apiKeys.lastFour}`,
      subjectStory: sql<string | null>`coalesce(${storyVersions.title}, ${stories.slug})`,
      actorClient: oauthClients.name,
    })
    .from(auditEvents)
    // A person's actor is `person:{id}`, followed by ` via oauth_client:{id}` when the person
    // acted through an application they allowed (approvals through the API).
    .leftJoin(
      actorPerson,
      sql`split_part(${auditEvents.actor}, ' ', 1) = 'person:' || ${actorPerson.id}::text`,
    )
    .leftJoin(
      oauthClients,
      and(
        sql`${auditEvents.actor} like '% via oauth_client:%'`,
        sql`split_part(${auditEvents.actor}, ' via oauth_client:', 2) = ${oauthClients.id}::text`,
        eq(oauthClients.organizationId, organizationId),
      ),
    )
    .leftJoin(subjectPerson, eq(subjectPerson.id, auditEvents.subjectId))
    .leftJoin(
      apiKeys,
      and(eq(apiKeys.id, auditEvents.subjectId), eq(apiKeys.organizationId, organizationId)),
    )
    .leftJoin(
      stories,
      and(eq(stories.id, auditEvents.subjectId), eq(stories.organizationId, organizationId)),
    )
    .leftJoin(
      storyVersions,
      and(eq(storyVersions.storyId, stories.id), eq(storyVersions.version, stories.currentVersion)),
    )
    .where(
      and(
        eq(auditEvents.organizationId, organizationId),
        options.before
          ? sql`(${micros}::bigint, ${auditEvents.id}) < (${options.before.micros}::bigint, ${options.before.id}::uuid)`
          : undefined,
      ),
    )
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(options.limit + 1);
  const more = rows.length > options.limit;
  const events = rows.slice(0, options.limit);
  const last = events.at(-1);
  return { events, next: more && last ? { micros: last.micros, id: last.id } : null };
}

export type AuditLogEntry = Awaited<ReturnType<typeof auditEventsOf>>["events"][number];
