import { EVENT, type StatusIncidentUpdatedEvent } from "./events.ts";
import { isUuid } from "./ids.ts";

const isString = (value: unknown): value is string => typeof value === "string";
const isTime = (value: unknown) => isString(value) && !Number.isNaN(Date.parse(value));

/**
 * Whether a bus message is a `status.incident_updated` event its consumers can act on (the
 * mailings and the webhooks services): the ids, the times and every field they read. A message
 * that is not is dropped with a warning, never retried.
 */
export function isWellFormedStatusEvent(event: unknown): event is StatusIncidentUpdatedEvent {
  const e = event as Partial<StatusIncidentUpdatedEvent> | null;
  const incident = e?.data?.incident as Partial<StatusIncidentUpdatedEvent["data"]["incident"]>;
  const update = e?.data?.update as Partial<StatusIncidentUpdatedEvent["data"]["update"]>;
  return (
    isString(e?.id) &&
    isUuid(e.id) &&
    e.type === EVENT.statusIncidentUpdated &&
    isTime(e.created_at) &&
    isString(incident?.id) &&
    isString(incident.name) &&
    (incident.kind === "incident" || incident.kind === "maintenance") &&
    isString(incident.status) &&
    isString(incident.impact) &&
    isString(incident.shortlink) &&
    Array.isArray(incident.components) &&
    incident.components.every((c) => isString(c?.id) && isString(c.name) && isString(c.status)) &&
    isString(update?.id) &&
    isString(update.status) &&
    isString(update.body) &&
    isTime(update.created_at)
  );
}
