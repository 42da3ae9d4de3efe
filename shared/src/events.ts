import { type Static, Type as T } from "@sinclair/typebox";

/**
 * Event contracts carried on the bus. The event id is JetStream's `Nats-Msg-Id` and the
 * webhook's `webhook-id`. Story events come from the outbox; the others are not recorded.
 */
export const EVENT = {
  storySubmitted: "story.submitted",
  storyApproved: "story.approved",
  storyRejected: "story.rejected",
  storyPublished: "story.published",
  storyUnpublished: "story.unpublished",
  webhookEndpointDisabled: "webhook_endpoint.disabled",
  webhookEndpointFailing: "webhook_endpoint.failing",
  webhookDeliveryExhausted: "webhook_delivery.exhausted",
  siteChanged: "site.changed",
  assetCleared: "asset.cleared",
  previewLinkOpened: "preview_link.opened",
  cachePurged: "cache.purged",
  statusIncidentUpdated: "status.incident_updated",
  cmsConnectionFailing: "cms_connection.failing",
} as const;

/**
 * The story events: written to the outbox, published on the bus and sent to webhooks. Defined
 * here, not in the database schema: the schema's columns take their values from this contract.
 */
export const WEBHOOK_EVENT_TYPES = [
  EVENT.storySubmitted,
  EVENT.storyApproved,
  EVENT.storyRejected,
  EVENT.storyPublished,
  EVENT.storyUnpublished,
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * Operational events: facts about an organization's own endpoints (the webhooks service's
 * alerts), which an endpoint may subscribe to beside the story events so a client can page
 * itself. Never written to the outbox; never sent to the endpoint they are about.
 */
export const OPERATIONAL_EVENT_TYPES = [
  EVENT.webhookEndpointFailing,
  EVENT.webhookEndpointDisabled,
  EVENT.webhookDeliveryExhausted,
] as const;
export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];

/**
 * The status page's events: public facts about the service itself, without an organization. An
 * endpoint of any organization may subscribe to them; they are sent to every one that did.
 */
export const STATUS_EVENT_TYPES = [EVENT.statusIncidentUpdated] as const;
export type StatusEventType = (typeof STATUS_EVENT_TYPES)[number];

export function isStatusEventType(type: string): type is StatusEventType {
  return (STATUS_EVENT_TYPES as readonly string[]).includes(type);
}

/** What an endpoint's `events` may list: the story events, the operational ones, the status page's. */
export const SUBSCRIBABLE_EVENT_TYPES = [
  ...WEBHOOK_EVENT_TYPES,
  ...OPERATIONAL_EVENT_TYPES,
  ...STATUS_EVENT_TYPES,
] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

export function isOperationalEventType(type: string): type is OperationalEventType {
  return (OPERATIONAL_EVENT_TYPES as readonly string[]).includes(type);
}

const DateTime = T.String({ format: "date-time" });

export const StoryEvent = T.Object({
  id: T.String(),
  type: T.Union(WEBHOOK_EVENT_TYPES.map((type) => T.Literal(type))),
  created_at: DateTime,
  data: T.Object({ organization_id: T.String(), story_id: T.Union([T.String(), T.Null()]) }),
});
export type StoryEvent = Static<typeof StoryEvent>;

/**
 * The webhooks service disabled an endpoint after deliveries kept failing or its receiver
 * answered `410 Gone` (a fact, published
 * once the disabling committed, again until the bus took it: the same id each time). The
 * workspace records it in its audit trail and emails the organization's owners and admins;
 * `last_error` is a short reason, never an address.
 */
export const WebhookEndpointDisabledEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.webhookEndpointDisabled),
  created_at: DateTime,
  data: T.Object({
    organization_id: T.String(),
    endpoint_id: T.String(),
    url: T.String(),
    reason: T.Literal("failing"),
    failed_in_a_row: T.Integer(),
    last_error: T.Union([T.String(), T.Null()]),
    /** The receiver answered `410 Gone`, which disables an endpoint at once. */
    receiver_gone: T.Optional(T.Boolean()),
  }),
});
export type WebhookEndpointDisabledEvent = Static<typeof WebhookEndpointDisabledEvent>;

/**
 * An endpoint's failed attempts in a row reached a share (50, 70 or 90%) of what disables it
 * (the webhooks service's alerts; once per threshold and run of failures). The workspace emails
 * the people who own the endpoint; the id is the alert's, the same on every publish.
 */
export const WebhookEndpointFailingEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.webhookEndpointFailing),
  created_at: DateTime,
  data: T.Object({
    organization_id: T.String(),
    endpoint_id: T.String(),
    url: T.String(),
    /** 50, 70 or 90: the share of the disable threshold reached. */
    threshold_percent: T.Integer(),
    failed_attempts_in_a_row: T.Integer(),
    /** Failed attempts in a row that amount to the disable threshold (100%). */
    disable_threshold_attempts: T.Integer(),
    last_error: T.Union([T.String(), T.Null()]),
  }),
});
export type WebhookEndpointFailingEvent = Static<typeof WebhookEndpointFailingEvent>;

/**
 * A delivery failed its last attempt (the webhooks service's alerts; at most one per endpoint
 * and run of failures). The workspace emails the people who own the endpoint.
 */
export const WebhookDeliveryExhaustedEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.webhookDeliveryExhausted),
  created_at: DateTime,
  data: T.Object({
    organization_id: T.String(),
    endpoint_id: T.String(),
    url: T.String(),
    delivery_id: T.String(),
    event_id: T.String(),
    event_type: T.String(),
    attempts: T.Integer(),
    last_status_code: T.Union([T.Integer(), T.Null()]),
    last_error: T.Union([T.String(), T.Null()]),
  }),
});
export type WebhookDeliveryExhaustedEvent = Static<typeof WebhookDeliveryExhaustedEvent>;

/** A site, its hostnames or its organization changed: public read caches drop the site. */
export const SiteChangedEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.siteChanged),
  created_at: DateTime,
  data: T.Object({ organization_id: T.String(), site: T.Union([T.String(), T.Null()]) }),
});
export type SiteChangedEvent = Static<typeof SiteChangedEvent>;

/**
 * An uploaded asset was cleared for publication: published answers of its organization that
 * name it (which left it out while uncleared) must drop from public read caches.
 */
export const AssetClearedEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.assetCleared),
  created_at: DateTime,
  data: T.Object({ organization_id: T.String(), asset_id: T.String() }),
});
export type AssetClearedEvent = Static<typeof AssetClearedEvent>;

/**
 * Someone opened a story's preview link and saw the story (public-read, best effort: a lost one
 * is a missed count). The workspace, which owns `preview_links`, records the time and counts it.
 * Nothing about who opened it.
 */
export const PreviewLinkOpenedEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.previewLinkOpened),
  created_at: DateTime,
  data: T.Object({ organization_id: T.String(), preview_link_id: T.String() }),
});
export type PreviewLinkOpenedEvent = Static<typeof PreviewLinkOpenedEvent>;

/**
 * What a story or site event changed in public answers, as `Cache-Tag` purge keys and
 * organization tags: public-read works it out once per event and tells every gateway replica,
 * whose answer cache (the one cache of public answers) drops exactly these. Kept in the stream like every
 * event; never written to the database nor sent to webhooks.
 */
export const CachePurgedEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.cachePurged),
  created_at: DateTime,
  data: T.Object({ organization_id: T.String(), tags: T.Array(T.String()) }),
});
export type CachePurgedEvent = Static<typeof CachePurgedEvent>;

/**
 * An incident or a scheduled maintenance on the status page was opened or given an update (a new
 * status, words, components): the workspace, which owns the status page's tables, writes it to the
 * outbox with the change. The mailings service emails the status page's confirmed subscribers; the
 * webhooks service sends it, signed like story events, to every endpoint subscribed to it, in any
 * organization (the status page is public). `incident` and `update` follow the shapes of the
 * Statuspage-compatible `/api/v2/incidents.json`.
 */
export const StatusIncidentUpdatedEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.statusIncidentUpdated),
  created_at: DateTime,
  data: T.Object({
    incident: T.Object({
      id: T.String(),
      name: T.String(),
      /** `incident` or `maintenance`. */
      kind: T.Union([T.Literal("incident"), T.Literal("maintenance")]),
      /** investigating|identified|monitoring|resolved|postmortem, or scheduled|in_progress|verifying|completed. */
      status: T.String(),
      /** none|minor|major|critical|maintenance */
      impact: T.String(),
      /** The incident's page: `{PUBLIC_BASE_URL}/status/incidents/{id}`. */
      shortlink: T.String(),
      components: T.Array(T.Object({ id: T.String(), name: T.String(), status: T.String() })),
      scheduled_for: T.Union([DateTime, T.Null()]),
      scheduled_until: T.Union([DateTime, T.Null()]),
      created_at: DateTime,
      updated_at: DateTime,
      resolved_at: T.Union([DateTime, T.Null()]),
    }),
    update: T.Object({
      id: T.String(),
      status: T.String(),
      body: T.String(),
      created_at: DateTime,
    }),
  }),
});
export type StatusIncidentUpdatedEvent = Static<typeof StatusIncidentUpdatedEvent>;

/**
 * Writes into a client's CMS kept failing (the webhooks service's CMS writer; once per run of
 * failures, the same id on every publish). The workspace audits it and emails the organization's
 * owners; `last_error` is the plain reason, never a credential or an address.
 */
export const CmsConnectionFailingEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.cmsConnectionFailing),
  created_at: DateTime,
  data: T.Object({
    organization_id: T.String(),
    connection_id: T.String(),
    kind: T.String(),
    url: T.String(),
    failed_in_a_row: T.Integer(),
    last_error: T.Union([T.String(), T.Null()]),
  }),
});
export type CmsConnectionFailingEvent = Static<typeof CmsConnectionFailingEvent>;

export const BusEvent = T.Union([
  StoryEvent,
  WebhookEndpointDisabledEvent,
  WebhookEndpointFailingEvent,
  WebhookDeliveryExhaustedEvent,
  SiteChangedEvent,
  AssetClearedEvent,
  PreviewLinkOpenedEvent,
  CachePurgedEvent,
  StatusIncidentUpdatedEvent,
  CmsConnectionFailingEvent,
]);
export type BusEvent = Static<typeof BusEvent>;
