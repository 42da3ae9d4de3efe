import Ajv from "ajv";
import addFormats from "ajv-formats";

/**
 * A small client of a Statuspage-style status page, written from Statuspage's public API
 * documentation (developer.statuspage.io, "Status API": summary, status, components, incidents,
 * scheduled maintenances), not from this service's code: each answer is checked against the
 * documented fields and enums before it is handed over.
 */

const date = { type: "string", format: "date-time" } as const;
const nullableDate = { anyOf: [date, { type: "null" }] } as const;

const page = {
  type: "object",
  required: ["id", "name", "url", "time_zone", "updated_at"],
  properties: {
    id: { type: "string", minLength: 1 },
    name: { type: "string", minLength: 1 },
    url: { type: "string", format: "uri" },
    time_zone: { type: "string" },
    updated_at: date,
  },
} as const;

const component = {
  type: "object",
  required: [
    "id",
    "name",
    "status",
    "created_at",
    "updated_at",
    "position",
    "description",
    "showcase",
    "start_date",
    "group_id",
    "page_id",
    "group",
    "only_show_if_degraded",
  ],
  properties: {
    id: { type: "string", minLength: 1 },
    name: { type: "string", minLength: 1 },
    status: {
      enum: [
        "operational",
        "degraded_performance",
        "partial_outage",
        "major_outage",
        "under_maintenance",
      ],
    },
    created_at: date,
    updated_at: date,
    position: { type: "integer" },
    description: { type: ["string", "null"] },
    showcase: { type: "boolean" },
    start_date: { anyOf: [{ type: "string", format: "date" }, { type: "null" }] },
    group_id: { type: ["string", "null"] },
    page_id: { type: "string" },
    group: { type: "boolean" },
    only_show_if_degraded: { type: "boolean" },
  },
} as const;

const incidentUpdate = (statuses: readonly string[]) => ({
  type: "object",
  required: ["id", "status", "body", "incident_id", "created_at", "updated_at", "display_at"],
  properties: {
    id: { type: "string" },
    status: { enum: statuses },
    body: { type: "string" },
    incident_id: { type: "string" },
    created_at: date,
    updated_at: date,
    display_at: date,
  },
});

const INCIDENT_STATUSES = ["investigating", "identified", "monitoring", "resolved", "postmortem"];
const MAINTENANCE_STATUSES = ["scheduled", "in_progress", "verifying", "completed"];

const incidentBase = (statuses: readonly string[], impacts: readonly string[]) => ({
  type: "object",
  required: [
    "id",
    "name",
    "status",
    "created_at",
    "updated_at",
    "monitoring_at",
    "resolved_at",
    "impact",
    "shortlink",
    "started_at",
    "page_id",
    "incident_updates",
    "components",
  ],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    status: { enum: statuses },
    created_at: date,
    updated_at: date,
    monitoring_at: nullableDate,
    resolved_at: nullableDate,
    impact: { enum: impacts },
    shortlink: { type: "string", format: "uri" },
    started_at: date,
    page_id: { type: "string" },
    incident_updates: { type: "array", items: incidentUpdate(statuses) },
    components: { type: "array", items: component },
  },
});

const incident = incidentBase(INCIDENT_STATUSES, ["none", "minor", "major", "critical"]);
const maintenance = {
  ...incidentBase(MAINTENANCE_STATUSES, ["none", "minor", "major", "critical", "maintenance"]),
  required: [
    ...incidentBase(MAINTENANCE_STATUSES, []).required,
    "scheduled_for",
    "scheduled_until",
  ],
  properties: {
    ...incidentBase(MAINTENANCE_STATUSES, ["none", "minor", "major", "critical", "maintenance"])
      .properties,
    scheduled_for: date,
    scheduled_until: date,
  },
};

const status = {
  type: "object",
  required: ["indicator", "description"],
  properties: {
    indicator: { enum: ["none", "minor", "major", "critical", "maintenance"] },
    description: { type: "string" },
  },
} as const;

const SCHEMAS = {
  "summary.json": {
    type: "object",
    required: ["page", "components", "incidents", "scheduled_maintenances", "status"],
    properties: {
      page,
      components: { type: "array", items: component },
      incidents: { type: "array", items: incident },
      scheduled_maintenances: { type: "array", items: maintenance },
      status,
    },
  },
  "status.json": { type: "object", required: ["page", "status"], properties: { page, status } },
  "components.json": {
    type: "object",
    required: ["page", "components"],
    properties: { page, components: { type: "array", items: component } },
  },
  "incidents.json": {
    type: "object",
    required: ["page", "incidents"],
    properties: { page, incidents: { type: "array", items: incident, maxItems: 50 } },
  },
  "scheduled-maintenances.json": {
    type: "object",
    required: ["page", "scheduled_maintenances"],
    properties: { page, scheduled_maintenances: { type: "array", items: maintenance } },
  },
} as const;

export type StatuspageEndpoint = keyof typeof SCHEMAS;

export interface Component {
  id: string;
  name: string;
  status: string;
  position: number;
}

export interface Incident {
  id: string;
  name: string;
  status: string;
  impact: string;
  shortlink: string;
  incident_updates: { status: string; body: string }[];
  components: Component[];
  scheduled_for?: string;
  scheduled_until?: string;
}

export class StatuspageClient {
  private readonly ajv = addFormats(new Ajv({ allErrors: true, strict: false }));

  constructor(private readonly base: string) {}

  /** GETs `/api/v2/{endpoint}`; throws naming every documented field the answer gets wrong. */
  async get<T>(endpoint: StatuspageEndpoint): Promise<T> {
    const response = await fetch(`${this.base}/api/v2/${endpoint}`, {
      headers: { accept: "application/json" },
    });
    if (response.status !== 200) throw new Error(`${endpoint}: HTTP ${response.status}`);
    if (!response.headers.get("content-type")?.startsWith("application/json")) {
      throw new Error(`${endpoint}: not JSON (${response.headers.get("content-type")})`);
    }
    const body = await response.json();
    const validate = this.ajv.compile(SCHEMAS[endpoint]);
    if (!validate(body)) {
      throw new Error(
        `${endpoint} breaks the documented shape: ${this.ajv.errorsText(validate.errors)}`,
      );
    }
    return body as T;
  }

  async components(): Promise<Component[]> {
    return (await this.get<{ components: Component[] }>("components.json")).components;
  }

  async componentStatus(id: string): Promise<string | undefined> {
    return (await this.components()).find((c) => c.id === id)?.status;
  }
}
