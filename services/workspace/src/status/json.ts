import type { Queryable } from "@newsroom/shared/db/index";
import { statusIncidentUpdates } from "@newsroom/shared/db/schema";
import { desc, eq } from "drizzle-orm";
import { type IncidentRow, type IncidentUpdateRow, incidentLink } from "./incidents.ts";
import { COMPONENTS, componentName } from "./model.ts";
import type { ComponentView, StatusSnapshot } from "./snapshot.ts";

/**
 * The Statuspage-compatible JSON (`/api/v2/*.json`): the fields and enums of Statuspage's public
 * documentation, so that status aggregators and their clients read it unchanged.
 */

export const PAGE_ID = "newsroom";
const PAGE_NAME = "Newsroom";

export interface IncidentWithUpdates {
  incident: IncidentRow;
  updates: IncidentUpdateRow[];
}

export async function incidentWithUpdates(
  db: Queryable,
  incident: IncidentRow,
): Promise<IncidentWithUpdates> {
  const updates = await db
    .select()
    .from(statusIncidentUpdates)
    .where(eq(statusIncidentUpdates.incidentId, incident.id))
    .orderBy(desc(statusIncidentUpdates.createdAt));
  return { incident, updates };
}

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export function pageJson(snapshot: StatusSnapshot, publicBaseUrl: string) {
  return {
    id: PAGE_ID,
    name: PAGE_NAME,
    url: `${publicBaseUrl.replace(/\/+$/, "")}/status`,
    time_zone: "Etc/UTC",
    updated_at: snapshot.updatedAt.toISOString(),
  };
}

export function componentJson(
  component: ComponentView,
  position: number,
  status = component.state,
) {
  return {
    id: component.id,
    name: component.name,
    status,
    created_at: component.createdAt.toISOString(),
    updated_at: component.updatedAt.toISOString(),
    position,
    description: component.description,
    showcase: true,
    start_date: component.createdAt.toISOString().slice(0, 10),
    group_id: null,
    page_id: PAGE_ID,
    group: false,
    only_show_if_degraded: false,
  };
}

/** An incident or maintenance as `incidents.json` and `scheduled-maintenances.json` show it. */
export function incidentJson(
  { incident, updates }: IncidentWithUpdates,
  publicBaseUrl: string,
  components: ComponentView[] = [],
) {
  const updatesOldestFirst = [...updates].sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime(),
  );
  // Each update's affected components: their state before it (the previous update's) and after.
  const before = new Map<string, string>();
  const affectedOf = new Map<
    string,
    { code: string; name: string; old_status: string; new_status: string }[]
  >();
  for (const update of updatesOldestFirst) {
    affectedOf.set(
      update.id,
      update.components.map((component) => ({
        code: component.id,
        name: componentName(component.id),
        old_status: before.get(component.id) ?? "operational",
        new_status: component.status,
      })),
    );
    for (const component of update.components) before.set(component.id, component.status);
  }
  const json = {
    id: incident.id,
    name: incident.name,
    status: incident.status,
    created_at: incident.createdAt.toISOString(),
    updated_at: incident.updatedAt.toISOString(),
    monitoring_at: iso(incident.monitoringAt),
    resolved_at: iso(incident.resolvedAt),
    impact: incident.impact,
    shortlink: incidentLink(publicBaseUrl, incident.id),
    started_at: incident.startedAt.toISOString(),
    page_id: PAGE_ID,
    incident_updates: [...updates]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map((update) => ({
        id: update.id,
        status: update.status,
        body: update.body,
        incident_id: incident.id,
        created_at: update.createdAt.toISOString(),
        updated_at: update.createdAt.toISOString(),
        display_at: update.createdAt.toISOString(),
        affected_components: affectedOf.get(update.id) ?? [],
        deliver_notifications: true,
      })),
    components: incident.components.map((affected) => {
      const view = components.find((component) => component.id === affected.id);
      const position = COMPONENTS.findIndex((component) => component.id === affected.id) + 1;
      return view
        ? componentJson(view, position, affected.status as ComponentView["state"])
        : { id: affected.id, name: componentName(affected.id), status: affected.status };
    }),
  };
  if (incident.kind !== "maintenance") return json;
  return {
    ...json,
    scheduled_for: iso(incident.scheduledFor),
    scheduled_until: iso(incident.scheduledUntil),
  };
}

export function statusJson(snapshot: StatusSnapshot) {
  return { indicator: snapshot.indicator, description: snapshot.description };
}

export function componentsJson(snapshot: StatusSnapshot) {
  return snapshot.components.map((component, index) => componentJson(component, index + 1));
}

/** `/api/v2/summary.json`: the page, components, unresolved incidents, upcoming or active maintenances, status. */
export function summaryJson(snapshot: StatusSnapshot, publicBaseUrl: string) {
  return {
    page: pageJson(snapshot, publicBaseUrl),
    components: componentsJson(snapshot),
    incidents: snapshot.activeIncidents.map((entry) =>
      incidentJson(entry, publicBaseUrl, snapshot.components),
    ),
    scheduled_maintenances: snapshot.openMaintenances.map((entry) =>
      incidentJson(entry, publicBaseUrl, snapshot.components),
    ),
    status: statusJson(snapshot),
  };
}
