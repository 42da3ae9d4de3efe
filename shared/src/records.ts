import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import { STORY_STATUSES, STORY_TYPES } from "./db/schema.ts";
import { ERROR_CODES } from "./errors.ts";
import { SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from "./events.ts";

/**
 * The records of the spec's "Resources and their fields": one place for each, used to validate,
 * to serialize and to describe the API.
 */

const DateTime = T.String({ format: "date-time", description: "ISO 8601 with offset" });
/** How long a key's or a webhook endpoint's optional name may be. */
export const NAME_MAX_LENGTH = 100;

const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);
const Enum = <V extends string>(values: readonly V[]) => T.Union(values.map((v) => T.Literal(v)));

export const StoryTypeSchema = Enum(STORY_TYPES);
export const StoryStatusSchema = Enum(STORY_STATUSES);
export const WebhookEventTypeSchema = Enum(WEBHOOK_EVENT_TYPES);
/** The story events and the operational ones: what an endpoint may subscribe to. */
export const SubscribableEventTypeSchema = Enum(SUBSCRIBABLE_EVENT_TYPES);

export const ListOf = <S extends TSchema>(item: S) =>
  T.Object({
    object: T.Literal("list"),
    data: T.Array(item),
    has_more: T.Boolean(),
    next_cursor: Nullable(T.String()),
  });

export const StoryOut = T.Object({
  object: T.Literal("story"),
  id: T.String({ format: "uuid" }),
  type: StoryTypeSchema,
  slug: T.String(),
  status: StoryStatusSchema,
  title: Nullable(T.String()),
  summary: Nullable(T.String()),
  version: Nullable(T.Integer()),
  topics: T.Array(T.String()),
  published_at: Nullable(DateTime),
  /** When a scheduled story publishes (or, once published or failed, when it was due). */
  publish_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
});
export type StoryOut = Static<typeof StoryOut>;

export const ApprovalDecisionOut = T.Object({
  object: T.Literal("approval_decision"),
  id: T.String(),
  version: Nullable(T.Integer()),
  decision: Enum(["approved", "rejected"] as const),
  actor_type: T.String(),
  actor_role: T.String(),
  note: Nullable(T.String()),
  decided_at: DateTime,
});
export type ApprovalDecisionOut = Static<typeof ApprovalDecisionOut>;

export const StoryDetailOut = T.Composite([
  StoryOut,
  T.Object({
    body: T.Array(T.Record(T.String(), T.Unknown())),
    approvals: T.Array(ApprovalDecisionOut),
  }),
]);
export type StoryDetailOut = Static<typeof StoryDetailOut>;

export const WebhookEndpointOut = T.Object({
  object: T.Literal("webhook_endpoint"),
  id: T.String(),
  url: T.String(),
  events: T.Array(SubscribableEventTypeSchema),
  status: Enum(["enabled", "disabled"] as const),
  disabled_reason: Nullable(Enum(["failing", "by_client", "by_armage"] as const)),
  secret_hint: T.String(),
  previous_secret_expires_at: T.Union([DateTime, T.Null()], {
    description:
      "After a secret rotation, when the replaced secret stops signing (24 hours after the rotation; until then each request carries both signatures). Null when the secret was never rotated.",
  }),
  created_at: DateTime,
  updated_at: DateTime,
  // Additive fields, after the spec's.
  name: Nullable(
    T.String({ description: "What the organization calls the endpoint; null when unnamed." }),
  ),
  topics: Nullable(
    T.Array(T.String(), {
      description:
        "Topic slugs: only events of stories with one of these topics are delivered. Null: every story.",
    }),
  ),
  auth_type: T.Union(
    [
      ...(["bearer", "headers", "oauth2_client_credentials"] as const).map((v) => T.Literal(v)),
      T.Null(),
    ],
    {
      description:
        "How requests authenticate beyond the signature; the credentials are never shown. Null: the signature alone.",
    },
  ),
  rate_limit_per_second: Nullable(
    T.Integer({
      minimum: 1,
      maximum: 1000,
      description:
        "Deliveries per second at most, across every sender; a delivery over it waits (no attempt counted). Null: no limit of the endpoint's own.",
    }),
  ),
  ordering: T.Union([T.Literal("none"), T.Literal("story")], {
    description:
      "`story`: a story's events arrive one at a time in the order they happened; a later one waits while an earlier one is pending or retried (other stories are not held up). `none`: as they come.",
  }),
  failure_alert_percent: T.Integer({
    description:
      "The highest failing alert of the endpoint's current run of failed attempts: 50, 70 or 90 (% of the failed attempts in a row that amount to the disable threshold); 0 when none, and after a success.",
  }),
});
export type WebhookEndpointOut = Static<typeof WebhookEndpointOut>;

export const WebhookDeliveryOut = T.Object({
  object: T.Literal("webhook_delivery"),
  id: T.String(),
  endpoint_id: T.String(),
  event_id: T.String(),
  event_type: SubscribableEventTypeSchema,
  story_id: Nullable(T.String()),
  status: Enum(["pending", "delivered", "failed"] as const),
  attempts: T.Integer(),
  last_status_code: Nullable(T.Integer()),
  last_duration_ms: Nullable(
    T.Integer({
      description:
        "How long the last attempt took, in milliseconds, from sending to the answer or the failure; null before the first attempt.",
    }),
  ),
  last_error: Nullable(T.String()),
  next_attempt_at: Nullable(DateTime),
  created_at: DateTime,
  delivered_at: Nullable(DateTime),
});
export type WebhookDeliveryOut = Static<typeof WebhookDeliveryOut>;

export const WebhookEventOut = T.Object({
  id: T.String(),
  object: T.Literal("event"),
  type: WebhookEventTypeSchema,
  created_at: DateTime,
  data: T.Object({
    story_id: T.String(),
    story: Nullable(StoryOut),
    sequence: T.Union([T.Integer({ minimum: 1 }), T.Null()], {
      description:
        "This story's event counter: per story, strictly increasing in the order its transitions committed. A receiver that has seen a higher sequence for the story can drop this event as stale. Null only for events recorded before sequences existed.",
    }),
    previous_status: T.Union([...STORY_STATUSES.map((v) => T.Literal(v)), T.Null()], {
      description:
        "The story's status before the transition that caused this event; null only for events recorded before it was kept.",
    }),
  }),
});
export type WebhookEventOut = Static<typeof WebhookEventOut>;

export const WebhookTestEventOut = T.Object({
  id: T.String(),
  object: T.Literal("event"),
  type: T.Literal("webhook.test"),
  created_at: DateTime,
  data: T.Record(T.String(), T.Unknown()),
});
export type WebhookTestEventOut = Static<typeof WebhookTestEventOut>;

const OperationalEndpoint = {
  endpoint_id: T.String({ description: "The endpoint the alert is about." }),
  url: T.String(),
  last_error: Nullable(T.String({ description: "The last failed attempt's short reason." })),
};

/** `webhook_endpoint.failing`: an endpoint's failed attempts in a row reached a share of what disables it. */
export const WebhookEndpointFailingEventOut = T.Object({
  id: T.String(),
  object: T.Literal("event"),
  type: T.Literal("webhook_endpoint.failing"),
  created_at: DateTime,
  data: T.Object({
    ...OperationalEndpoint,
    threshold_percent: T.Union([T.Literal(50), T.Literal(70), T.Literal(90)], {
      description: "The share of the disable threshold reached: once each per run of failures.",
    }),
    failed_attempts_in_a_row: T.Integer(),
    disable_threshold_attempts: T.Integer({
      description: "Failed attempts in a row that amount to the disable threshold (100%).",
    }),
  }),
});
export type WebhookEndpointFailingEventOut = Static<typeof WebhookEndpointFailingEventOut>;

/** `webhook_endpoint.disabled`: an endpoint was disabled for failing. */
export const WebhookEndpointDisabledEventOut = T.Object({
  id: T.String(),
  object: T.Literal("event"),
  type: T.Literal("webhook_endpoint.disabled"),
  created_at: DateTime,
  data: T.Object({
    ...OperationalEndpoint,
    reason: T.Literal("failing"),
    failed_in_a_row: T.Integer({ description: "Failed deliveries in a row." }),
    receiver_gone: T.Boolean({ description: "The receiver answered 410 Gone." }),
  }),
});
export type WebhookEndpointDisabledEventOut = Static<typeof WebhookEndpointDisabledEventOut>;

/** `webhook_delivery.exhausted`: a delivery failed its last attempt. */
export const WebhookDeliveryExhaustedEventOut = T.Object({
  id: T.String(),
  object: T.Literal("event"),
  type: T.Literal("webhook_delivery.exhausted"),
  created_at: DateTime,
  data: T.Object({
    ...OperationalEndpoint,
    delivery_id: T.String(),
    event_id: T.String(),
    event_type: T.String(),
    attempts: T.Integer(),
    last_status_code: Nullable(T.Integer()),
  }),
});
export type WebhookDeliveryExhaustedEventOut = Static<typeof WebhookDeliveryExhaustedEventOut>;

const StatusComponentOut = T.Object({
  id: T.String(),
  name: T.String(),
  status: T.String({
    description:
      "operational, degraded_performance, partial_outage, major_outage or under_maintenance.",
  }),
});

/**
 * `status.incident_updated`: an incident or a scheduled maintenance on the status page was
 * opened or given an update. `incident` and `update` follow the Statuspage-compatible
 * `/api/v2/incidents.json`. Sent to every subscribed endpoint, in any organization.
 */
export const StatusIncidentUpdatedEventOut = T.Object({
  id: T.String(),
  object: T.Literal("event"),
  type: T.Literal("status.incident_updated"),
  created_at: DateTime,
  timestamp: T.String({
    format: "date-time",
    description: "When the update was made: the same as `created_at` (Standard Webhooks' name).",
  }),
  data: T.Object({
    incident: T.Object({
      id: T.String(),
      name: T.String(),
      kind: T.Union([T.Literal("incident"), T.Literal("maintenance")]),
      status: T.String({
        description:
          "investigating, identified, monitoring, resolved or postmortem; for a maintenance scheduled, in_progress, verifying or completed.",
      }),
      impact: T.String({ description: "none, minor, major, critical or maintenance." }),
      shortlink: T.String({ description: "The incident's page on the status page." }),
      components: T.Array(StatusComponentOut),
      scheduled_for: Nullable(DateTime),
      scheduled_until: Nullable(DateTime),
      created_at: DateTime,
      updated_at: DateTime,
      resolved_at: Nullable(DateTime),
    }),
    update: T.Object({
      id: T.String(),
      status: T.String(),
      body: T.String({ description: "The update's words, as the staff wrote them (plain text)." }),
      created_at: DateTime,
    }),
  }),
});
export type StatusIncidentUpdatedEventOut = Static<typeof StatusIncidentUpdatedEventOut>;

const errorCodes = Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[];
const errorTypes = [...new Set(Object.values(ERROR_CODES).map((c) => c.type))];

export const ErrorOut = T.Object({
  error: T.Object({
    type: Enum(errorTypes),
    code: Enum(errorCodes),
    message: T.String(),
    request_id: T.String(),
    fields: T.Optional(
      T.Array(T.Object({ field: T.String(), reason: T.String(), message: T.Optional(T.String()) })),
    ),
  }),
});
export type ErrorOut = Static<typeof ErrorOut>;

/** Timestamps leave the service as ISO 8601 with an offset (`Z`). */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
