/**
 * The status page's vocabulary: its components, their states, incidents' statuses and impacts,
 * and the thresholds that turn probe results into states. Names and enums follow Statuspage's
 * public API (`/api/v2/*.json`) so that status aggregators read the page as they read theirs.
 */

export const COMPONENT_STATES = [
  "operational",
  "degraded_performance",
  "partial_outage",
  "major_outage",
  "under_maintenance",
] as const;
export type ComponentState = (typeof COMPONENT_STATES)[number];

export const STATE_LABELS: Record<ComponentState, string> = {
  operational: "Operational",
  degraded_performance: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Major outage",
  under_maintenance: "Under maintenance",
};

/** The components, in the order the page shows them. Ids are stable: aggregators keep them. */
export const COMPONENTS = [
  {
    id: "public-newsroom",
    name: "Public newsroom",
    description: "The house newsroom's pages and the public read API.",
  },
  {
    id: "hosted-newsrooms",
    name: "Hosted newsrooms",
    description: "Client newsrooms on their own hostnames and under the newsroom host.",
  },
  { id: "client-api", name: "Client API", description: "The API clients call with their keys." },
  {
    id: "forms",
    name: "Forms and newsletters",
    description: "Contact, careers and newsletter forms, and the emails they send.",
  },
  { id: "webhooks", name: "Webhooks", description: "Story events delivered to endpoints." },
  { id: "workspace", name: "Workspace", description: "The web app the newsroom works in." },
] as const;
export type ComponentId = (typeof COMPONENTS)[number]["id"];
export const COMPONENT_IDS: readonly string[] = COMPONENTS.map((component) => component.id);

export function componentName(id: string): string {
  return COMPONENTS.find((component) => component.id === id)?.name ?? id;
}

export const INCIDENT_STATUSES = [
  "investigating",
  "identified",
  "monitoring",
  "resolved",
  "postmortem",
] as const;
export const MAINTENANCE_STATUSES = ["scheduled", "in_progress", "verifying", "completed"] as const;
export const IMPACTS = ["none", "minor", "major", "critical", "maintenance"] as const;
export type Impact = (typeof IMPACTS)[number];
export type IncidentKind = "incident" | "maintenance";

export const STATUS_LABELS: Record<string, string> = {
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved",
  postmortem: "Postmortem",
  scheduled: "Scheduled",
  in_progress: "In progress",
  verifying: "Verifying",
  completed: "Completed",
};

/** Whether an incident or maintenance with this status is over (no longer shown as active). */
export function isClosedStatus(status: string): boolean {
  return status === "resolved" || status === "postmortem" || status === "completed";
}

/**
 * The thresholds that turn probe results into a component's state, in one place.
 * - A process whose `/health/ready` fails or does not answer within `probeTimeoutMs`: its
 *   components are `major_outage`.
 * - A real public read through the gateway that fails: `major_outage`; slower than
 *   `slowReadMs`: `degraded_performance`.
 * - The outbox's oldest unsent event older than `outboxDegradedSeconds`: webhooks
 *   `degraded_performance`; older than `outboxOutageSeconds`: `partial_outage`.
 * - The webhook delivery queue's lag (oldest due delivery) past `deliveryLagDegradedSeconds`:
 *   `degraded_performance`; past `deliveryLagOutageSeconds`: `partial_outage`.
 */
export const THRESHOLDS = {
  probeTimeoutMs: 5_000,
  slowReadMs: 2_000,
  outboxDegradedSeconds: 60,
  outboxOutageSeconds: 600,
  deliveryLagDegradedSeconds: 120,
  deliveryLagOutageSeconds: 900,
} as const;

const SEVERITY: Record<ComponentState, number> = {
  operational: 0,
  under_maintenance: 1,
  degraded_performance: 2,
  partial_outage: 3,
  major_outage: 4,
};

/** The worse of two states. */
export function worse(a: ComponentState, b: ComponentState): ComponentState {
  return SEVERITY[b] > SEVERITY[a] ? b : a;
}

/** Statuspage's page indicator from the components' states and active maintenance. */
export function overallIndicator(states: ComponentState[]): {
  indicator: Impact;
  description: string;
} {
  const worst = states.reduce<ComponentState>((acc, state) => worse(acc, state), "operational");
  if (worst === "major_outage")
    return { indicator: "critical", description: "Major System Outage" };
  if (worst === "partial_outage") {
    return { indicator: "major", description: "Partial System Outage" };
  }
  if (worst === "degraded_performance") {
    return { indicator: "minor", description: "Minor Service Outage" };
  }
  if (worst === "under_maintenance") {
    return { indicator: "maintenance", description: "Service Under Maintenance" };
  }
  return { indicator: "none", description: "All Systems Operational" };
}

export function isComponentState(value: unknown): value is ComponentState {
  return typeof value === "string" && (COMPONENT_STATES as readonly string[]).includes(value);
}
