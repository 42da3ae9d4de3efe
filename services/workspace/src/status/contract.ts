import {
  errorAnswer,
  type HeaderName,
  operation,
  type ResponseSpec,
} from "@newsroom/shared/openapi/operation";
import { Type as T, type TSchema } from "@sinclair/typebox";

/**
 * The status page's routes as the OpenAPI document describes them: the Statuspage-compatible
 * JSON (the fields and enums of Statuspage's public API), the page and its feeds.
 */

const DateTime = T.String({ format: "date-time", description: "ISO 8601 with offset" });
const NullableDateTime = T.Union([DateTime, T.Null()]);
const COMPONENT_STATUS = T.Union(
  [
    "operational",
    "degraded_performance",
    "partial_outage",
    "major_outage",
    "under_maintenance",
  ].map((value) => T.Literal(value)),
);

const Page = T.Object({
  id: T.String(),
  name: T.String(),
  url: T.String({ format: "uri" }),
  time_zone: T.String(),
  updated_at: DateTime,
});

const Component = T.Object({
  id: T.String({
    description:
      "Stable: `public-newsroom`, `hosted-newsrooms`, `client-api`, `forms`, `webhooks`, `workspace`.",
  }),
  name: T.String(),
  status: COMPONENT_STATUS,
  created_at: DateTime,
  updated_at: DateTime,
  position: T.Integer(),
  description: T.Union([T.String(), T.Null()]),
  showcase: T.Boolean(),
  start_date: T.Union([T.String({ format: "date" }), T.Null()]),
  group_id: T.Union([T.String(), T.Null()]),
  page_id: T.String(),
  group: T.Boolean(),
  only_show_if_degraded: T.Boolean(),
});

const Status = T.Object({
  indicator: T.Union(
    ["none", "minor", "major", "critical", "maintenance"].map((v) => T.Literal(v)),
  ),
  description: T.String(),
});

const IncidentUpdate = T.Object({
  id: T.String(),
  status: T.String(),
  body: T.String(),
  incident_id: T.String(),
  created_at: DateTime,
  updated_at: DateTime,
  display_at: DateTime,
  affected_components: T.Array(
    T.Object({
      code: T.String(),
      name: T.String(),
      old_status: T.String(),
      new_status: T.String(),
    }),
  ),
  deliver_notifications: T.Boolean(),
});

const incidentProperties = {
  id: T.String(),
  name: T.String(),
  created_at: DateTime,
  updated_at: DateTime,
  monitoring_at: NullableDateTime,
  resolved_at: NullableDateTime,
  shortlink: T.String({ format: "uri" }),
  started_at: DateTime,
  page_id: T.String(),
  incident_updates: T.Array(IncidentUpdate, { description: "Newest first." }),
  components: T.Array(Component, {
    description: "The affected components, in the state the incident gives them.",
  }),
};

const Incident = T.Object({
  ...incidentProperties,
  status: T.Union(
    ["investigating", "identified", "monitoring", "resolved", "postmortem"].map((v) =>
      T.Literal(v),
    ),
  ),
  impact: T.Union(["none", "minor", "major", "critical"].map((v) => T.Literal(v))),
});

const ScheduledMaintenance = T.Object({
  ...incidentProperties,
  status: T.Union(["scheduled", "in_progress", "verifying", "completed"].map((v) => T.Literal(v))),
  impact: T.Union(["none", "minor", "major", "critical", "maintenance"].map((v) => T.Literal(v))),
  scheduled_for: NullableDateTime,
  scheduled_until: NullableDateTime,
});

const CACHED: HeaderName[] = ["Cache-Control", "ETag"];
const NOT_MODIFIED: ResponseSpec = {
  description: "Unchanged since the `ETag` sent as `If-None-Match`.",
  headers: CACHED,
};
const UNKNOWN = errorAnswer(
  "The status is not known yet (no snapshot since the process started and the database cannot be read) (`content_unavailable`).",
  ["Retry-After", "Cache-Control"],
);

function statusOperation(
  operationId: string,
  summary: string,
  description: string,
  ok: TSchema | { contentType: string; schema: TSchema },
  extra: Record<number, ResponseSpec> = {},
) {
  const body = "contentType" in ok ? ok : { schema: ok };
  return operation({
    operationId,
    summary,
    description: `${description} Served from a snapshot read at most every 3 s; while the database cannot be read, the last one known (\`max-age=10\`). \`Cache-Control: public, max-age=30\`.`,
    tags: ["Status page"],
    status: "Live",
    responses: {
      200: { description: "The answer.", ...body, headers: CACHED },
      304: NOT_MODIFIED,
      ...extra,
    },
  });
}

const json = (properties: Record<string, TSchema>) => T.Object(properties);

export const STATUS_OPERATIONS = {
  page: statusOperation(
    "getStatusPage",
    "The status page (HTML)",
    "Components with their state and 90 daily uptime bars, incidents and maintenance with their updates, a subscribe form and links to the feeds. Works without script.",
    { contentType: "text/html", schema: T.String() },
  ),
  incidentPage: statusOperation(
    "getStatusIncidentPage",
    "An incident's page (HTML), its shortlink",
    "One of the 50 most recent incidents or maintenances, with every update.",
    { contentType: "text/html", schema: T.String() },
    {
      404: {
        description: "No such incident among the recent ones: a page saying so.",
        contentType: "text/html",
        schema: T.String(),
        headers: CACHED,
      },
    },
  ),
  styles: statusOperation("getStatusStyles", "The status page's stylesheet", "Cached an hour.", {
    contentType: "text/css",
    schema: T.String(),
  }),
  atom: statusOperation(
    "getStatusAtomFeed",
    "Incident history (Atom)",
    "Each update of the recent incidents and maintenances an entry, newest first, linking its incident's page.",
    { contentType: "application/atom+xml", schema: T.String() },
    { 503: UNKNOWN },
  ),
  rss: statusOperation(
    "getStatusRssFeed",
    "Incident history (RSS 2.0)",
    "The same entries as the Atom feed.",
    { contentType: "application/rss+xml", schema: T.String() },
    { 503: UNKNOWN },
  ),
  summary: statusOperation(
    "getStatusSummary",
    "Status summary (Statuspage-compatible)",
    "The page, every component, the unresolved incidents, the maintenances scheduled or in progress, and the overall status.",
    json({
      page: Page,
      components: T.Array(Component),
      incidents: T.Array(Incident),
      scheduled_maintenances: T.Array(ScheduledMaintenance),
      status: Status,
    }),
    { 503: UNKNOWN },
  ),
  status: statusOperation(
    "getStatusIndicator",
    "Overall status (Statuspage-compatible)",
    "The indicator is `none`, `minor`, `major`, `critical` or `maintenance`, from the worst component.",
    json({ page: Page, status: Status }),
    { 503: UNKNOWN },
  ),
  components: statusOperation(
    "listStatusComponents",
    "Components (Statuspage-compatible)",
    "Each component's state: a staff override, else the worse of its probes' and its open incidents'.",
    json({ page: Page, components: T.Array(Component) }),
    { 503: UNKNOWN },
  ),
  incidents: statusOperation(
    "listStatusIncidents",
    "The 50 most recent incidents (Statuspage-compatible)",
    "Newest first, resolved or not, with their updates.",
    json({ page: Page, incidents: T.Array(Incident) }),
    { 503: UNKNOWN },
  ),
  unresolved: statusOperation(
    "listUnresolvedStatusIncidents",
    "Unresolved incidents (Statuspage-compatible)",
    "Incidents not resolved.",
    json({ page: Page, incidents: T.Array(Incident) }),
    { 503: UNKNOWN },
  ),
  maintenances: statusOperation(
    "listStatusMaintenances",
    "The 50 most recent scheduled maintenances (Statuspage-compatible)",
    "Newest first, with their window and updates.",
    json({ page: Page, scheduled_maintenances: T.Array(ScheduledMaintenance) }),
    { 503: UNKNOWN },
  ),
  upcoming: statusOperation(
    "listUpcomingStatusMaintenances",
    "Upcoming maintenances (Statuspage-compatible)",
    "Maintenances still `scheduled`.",
    json({ page: Page, scheduled_maintenances: T.Array(ScheduledMaintenance) }),
    { 503: UNKNOWN },
  ),
  active: statusOperation(
    "listActiveStatusMaintenances",
    "Maintenances in progress (Statuspage-compatible)",
    "Maintenances `in_progress` or `verifying`.",
    json({ page: Page, scheduled_maintenances: T.Array(ScheduledMaintenance) }),
    { 503: UNKNOWN },
  ),
};
