import type { Db, Queryable } from "@newsroom/shared/db/index";
import {
  organizations,
  statusIncidents,
  statusIncidentUpdates,
  statusOutboxEvents,
} from "@newsroom/shared/db/schema";
import { type FieldError, notFound, validationFailed } from "@newsroom/shared/errors";
import { EVENT, type StatusIncidentUpdatedEvent } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { activeTraceParent } from "@newsroom/shared/tracing/index";
import { desc, eq, inArray } from "drizzle-orm";
import { auditAll } from "../audit.ts";
import {
  COMPONENT_IDS,
  componentName,
  IMPACTS,
  INCIDENT_STATUSES,
  type IncidentKind,
  isClosedStatus,
  isComponentState,
  MAINTENANCE_STATUSES,
} from "./model.ts";

export type IncidentRow = typeof statusIncidents.$inferSelect;
export type IncidentUpdateRow = typeof statusIncidentUpdates.$inferSelect;
export interface AffectedComponent {
  id: string;
  status: string;
}

/** What staff send to open an incident or schedule a maintenance (the web form, the API). */
export interface IncidentInput {
  kind?: unknown;
  name?: unknown;
  status?: unknown;
  impact?: unknown;
  body?: unknown;
  components?: unknown;
  scheduled_for?: unknown;
  scheduled_until?: unknown;
}

/** An update: a new status and its words; the affected components' states when they changed. */
export interface UpdateInput {
  status?: unknown;
  body?: unknown;
  components?: unknown;
}

const NAME_MAX = 200;
const BODY_MAX = 10_000;

function text(
  value: unknown,
  field: string,
  max: number,
  errors: FieldError[],
): string | undefined {
  const given = typeof value === "string" ? value.trim() : "";
  if (!given) {
    errors.push({ field, reason: "required", message: "Fill this in." });
    return;
  }
  if (given.length > max) {
    errors.push({ field, reason: "too_long", message: `At most ${max} characters.` });
    return;
  }
  return given;
}

function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  field: string,
  errors: FieldError[],
): T | undefined {
  if (typeof value === "string" && (allowed as readonly string[]).includes(value))
    return value as T;
  errors.push({ field, reason: "invalid", message: `One of: ${allowed.join(", ")}.` });
  return;
}

function dateTime(value: unknown, field: string, errors: FieldError[]): Date | undefined {
  const date = typeof value === "string" && value ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) {
    errors.push({
      field,
      reason: "invalid",
      message: "A date and time, such as 2026-12-01T22:00Z.",
    });
    return;
  }
  return date;
}

function affected(value: unknown, errors: FieldError[]): AffectedComponent[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.push({ field: "components", reason: "invalid", message: "A list of components." });
    return [];
  }
  const seen = new Set<string>();
  const list: AffectedComponent[] = [];
  for (const [index, item] of value.entries()) {
    const { id, status } = (item ?? {}) as { id?: unknown; status?: unknown };
    if (typeof id !== "string" || !COMPONENT_IDS.includes(id)) {
      errors.push({
        field: `components[${index}].id`,
        reason: "invalid",
        message: "No such component.",
      });
      continue;
    }
    if (!isComponentState(status)) {
      errors.push({
        field: `components[${index}].status`,
        reason: "invalid",
        message:
          "operational, degraded_performance, partial_outage, major_outage or under_maintenance.",
      });
      continue;
    }
    if (seen.has(id)) continue;
    seen.add(id);
    list.push({ id, status });
  }
  return list;
}

function statusesOf(kind: IncidentKind): readonly string[] {
  return kind === "maintenance" ? MAINTENANCE_STATUSES : INCIDENT_STATUSES;
}

/**
 * The event of an incident's change, as the contract (`StatusIncidentUpdatedEvent`) and
 * `/api/v2/incidents.json` shape it.
 */
export function incidentEvent(
  incident: IncidentRow,
  update: IncidentUpdateRow,
  publicBaseUrl: string,
): StatusIncidentUpdatedEvent {
  return {
    id: newId(),
    type: EVENT.statusIncidentUpdated,
    created_at: update.createdAt.toISOString(),
    data: {
      incident: {
        id: incident.id,
        name: incident.name,
        kind: incident.kind === "maintenance" ? "maintenance" : "incident",
        status: incident.status,
        impact: incident.impact,
        shortlink: incidentLink(publicBaseUrl, incident.id),
        components: incident.components.map((component) => ({
          id: component.id,
          name: componentName(component.id),
          status: component.status,
        })),
        scheduled_for: incident.scheduledFor?.toISOString() ?? null,
        scheduled_until: incident.scheduledUntil?.toISOString() ?? null,
        created_at: incident.createdAt.toISOString(),
        updated_at: incident.updatedAt.toISOString(),
        resolved_at: incident.resolvedAt?.toISOString() ?? null,
      },
      update: {
        id: update.id,
        status: update.status,
        body: update.body,
        created_at: update.createdAt.toISOString(),
      },
    },
  };
}

export function incidentLink(publicBaseUrl: string, id: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}/status/incidents/${id}`;
}

async function writeEvent(tx: Queryable, event: StatusIncidentUpdatedEvent): Promise<void> {
  await tx.insert(statusOutboxEvents).values({
    id: event.id,
    type: event.type,
    payload: event as unknown as Record<string, unknown>,
    createdAt: new Date(event.created_at),
    traceParent: activeTraceParent(),
  });
}

/** Audited against the house organization, whose staff run the status page (when it exists). */
export async function auditStatus(
  tx: Queryable,
  houseOrg: string,
  action: string,
  subjectId: string | null,
  actor: string,
): Promise<void> {
  const [house] = await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.slug, houseOrg));
  if (!house) return;
  await auditAll(tx, [{ organizationId: house.id, action, subjectId, actor }]);
}

export interface StatusWriteContext {
  db: Db;
  houseOrg: string;
  publicBaseUrl: string;
  /** Asks the outbox relay for a pass once the change committed. */
  kickRelay: () => void;
  now?: () => Date;
}

/**
 * Opens an incident or schedules a maintenance with its first update: the rows and the
 * `status.incident_updated` event in one transaction, audited. 422 with each field's error.
 */
export async function createIncident(
  context: StatusWriteContext,
  input: IncidentInput,
  actor: string,
): Promise<{ incident: IncidentRow; update: IncidentUpdateRow }> {
  const errors: FieldError[] = [];
  const kind = oneOf<IncidentKind>(
    input.kind ?? "incident",
    ["incident", "maintenance"],
    "kind",
    errors,
  );
  const name = text(input.name, "name", NAME_MAX, errors);
  const defaultStatus = kind === "maintenance" ? "scheduled" : "investigating";
  const status = kind
    ? oneOf(input.status ?? defaultStatus, statusesOf(kind), "status", errors)
    : undefined;
  const impact = oneOf(
    input.impact ?? (kind === "maintenance" ? "maintenance" : "minor"),
    IMPACTS,
    "impact",
    errors,
  );
  const body = text(input.body, "body", BODY_MAX, errors);
  const components = affected(input.components, errors);
  let scheduledFor: Date | undefined;
  let scheduledUntil: Date | undefined;
  if (kind === "maintenance") {
    scheduledFor = dateTime(input.scheduled_for, "scheduled_for", errors);
    scheduledUntil = dateTime(input.scheduled_until, "scheduled_until", errors);
    if (scheduledFor && scheduledUntil && scheduledUntil <= scheduledFor) {
      errors.push({
        field: "scheduled_until",
        reason: "before_start",
        message: "The end must come after the start.",
      });
    }
  }
  if (errors.length > 0 || !kind || !name || !status || !impact || !body) {
    throw validationFailed(errors);
  }
  const now = context.now?.() ?? new Date();
  const closed = isClosedStatus(status);
  const result = await context.db.transaction(async (tx) => {
    const [incident] = await tx
      .insert(statusIncidents)
      .values({
        id: newId(),
        kind,
        name,
        status,
        impact,
        components,
        scheduledFor: scheduledFor ?? null,
        scheduledUntil: scheduledUntil ?? null,
        startedAt: scheduledFor ?? now,
        monitoringAt: status === "monitoring" ? now : null,
        resolvedAt: closed ? now : null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const [update] = await tx
      .insert(statusIncidentUpdates)
      .values({ id: newId(), incidentId: incident!.id, status, body, components, createdAt: now })
      .returning();
    await writeEvent(tx, incidentEvent(incident!, update!, context.publicBaseUrl));
    await auditStatus(tx, context.houseOrg, `status.${kind}_created`, incident!.id, actor);
    return { incident: incident!, update: update! };
  });
  context.kickRelay();
  return result;
}

/**
 * Posts an update to an incident or maintenance: its new status and words, and the affected
 * components' states when given; resolving (or completing) sets `resolved_at`. One transaction
 * with its event, audited.
 */
export async function addIncidentUpdate(
  context: StatusWriteContext,
  incidentId: string,
  input: UpdateInput,
  actor: string,
): Promise<{ incident: IncidentRow; update: IncidentUpdateRow }> {
  const existing = await findIncident(context.db, incidentId);
  if (!existing) throw notFound("No such incident.");
  const errors: FieldError[] = [];
  const kind = existing.kind as IncidentKind;
  const status = oneOf(input.status, statusesOf(kind), "status", errors);
  const body = text(input.body, "body", BODY_MAX, errors);
  const given = input.components === undefined ? undefined : affected(input.components, errors);
  if (errors.length > 0 || !status || !body) throw validationFailed(errors);
  const now = context.now?.() ?? new Date();
  const closed = isClosedStatus(status);
  // Once over, its components are back to operational unless staff said otherwise.
  const components =
    given ??
    (closed
      ? existing.components.map((component) => ({ id: component.id, status: "operational" }))
      : existing.components);
  const result = await context.db.transaction(async (tx) => {
    const [incident] = await tx
      .update(statusIncidents)
      .set({
        status,
        components,
        updatedAt: now,
        monitoringAt:
          status === "monitoring" ? (existing.monitoringAt ?? now) : existing.monitoringAt,
        resolvedAt: closed ? (existing.resolvedAt ?? now) : null,
      })
      .where(eq(statusIncidents.id, incidentId))
      .returning();
    const [update] = await tx
      .insert(statusIncidentUpdates)
      .values({ id: newId(), incidentId, status, body, components, createdAt: now })
      .returning();
    await writeEvent(tx, incidentEvent(incident!, update!, context.publicBaseUrl));
    await auditStatus(tx, context.houseOrg, `status.${kind}_updated`, incidentId, actor);
    return { incident: incident!, update: update! };
  });
  context.kickRelay();
  return result;
}

export async function findIncident(db: Queryable, id: string): Promise<IncidentRow | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const [row] = await db.select().from(statusIncidents).where(eq(statusIncidents.id, id));
  return row ?? null;
}

/** The most recent incidents and maintenances (newest first) with their updates (newest first). */
export async function recentIncidents(
  db: Queryable,
  limit = 50,
): Promise<{ incident: IncidentRow; updates: IncidentUpdateRow[] }[]> {
  const incidents = await db
    .select()
    .from(statusIncidents)
    .orderBy(desc(statusIncidents.createdAt))
    .limit(limit);
  if (incidents.length === 0) return [];
  const updates = await db
    .select()
    .from(statusIncidentUpdates)
    .where(
      inArray(
        statusIncidentUpdates.incidentId,
        incidents.map((incident) => incident.id),
      ),
    )
    .orderBy(desc(statusIncidentUpdates.createdAt));
  return incidents.map((incident) => ({
    incident,
    updates: updates.filter((update) => update.incidentId === incident.id),
  }));
}
