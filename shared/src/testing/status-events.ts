import { EVENT, type StatusIncidentUpdatedEvent } from "../events.ts";

type Incident = StatusIncidentUpdatedEvent["data"]["incident"];
type Update = StatusIncidentUpdatedEvent["data"]["update"];

/**
 * A `status.incident_updated` event as the workspace writes it: an incident with one affected
 * component and one update. Each call is a new event, a new update and (unless given) a new
 * incident; `incident` and `update` replace fields of either.
 */
export function statusIncidentEvent(
  options: { incident?: Partial<Incident>; update?: Partial<Update>; baseUrl?: string } = {},
): StatusIncidentUpdatedEvent {
  const at = new Date().toISOString();
  const id = options.incident?.id ?? crypto.randomUUID();
  const base = (options.baseUrl ?? "https://api.example.test").replace(/\/+$/, "");
  const update: Update = {
    id: crypto.randomUUID(),
    status: "investigating",
    body: "Webhook deliveries are delayed by up to ten minutes. We are looking into it.",
    created_at: at,
    ...options.update,
  };
  return {
    id: crypto.randomUUID(),
    type: EVENT.statusIncidentUpdated,
    created_at: at,
    data: {
      incident: {
        id,
        name: "Delayed webhooks",
        kind: "incident",
        status: update.status,
        impact: "minor",
        shortlink: `${base}/status/incidents/${id}`,
        components: [{ id: crypto.randomUUID(), name: "Webhooks", status: "degraded_performance" }],
        scheduled_for: null,
        scheduled_until: null,
        created_at: at,
        updated_at: at,
        resolved_at: null,
        ...options.incident,
      },
      update,
    },
  };
}
