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
  webhookTest: "webhook.test",
  webhookTestResult: "webhook.test_result",
  siteChanged: "site.changed",
  cachePurged: "cache.purged",
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

const DateTime = T.String({ format: "date-time" });

export const StoryEvent = T.Object({
  id: T.String(),
  type: T.Union(WEBHOOK_EVENT_TYPES.map((type) => T.Literal(type))),
  created_at: DateTime,
  data: T.Object({ organization_id: T.String(), story_id: T.Union([T.String(), T.Null()]) }),
});
export type StoryEvent = Static<typeof StoryEvent>;

export const WebhookTestEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.webhookTest),
  created_at: DateTime,
  data: T.Object({ organization_id: T.String(), endpoint_id: T.String() }),
});
export type WebhookTestEvent = Static<typeof WebhookTestEvent>;

/**
 * How one `webhook.test` went (the webhooks service tells whoever asked, the workspace): whether
 * the receiver accepted it (2xx), its status, how long it took and, if not, why (never an
 * address). Not recorded anywhere.
 */
export const WebhookTestResultEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.webhookTestResult),
  created_at: DateTime,
  data: T.Object({
    organization_id: T.String(),
    endpoint_id: T.String(),
    test_event_id: T.String(),
    accepted: T.Boolean(),
    status_code: T.Union([T.Integer(), T.Null()]),
    duration_ms: T.Integer(),
    error: T.Union([T.String(), T.Null()]),
  }),
});
export type WebhookTestResultEvent = Static<typeof WebhookTestResultEvent>;

/** A site, its hostnames or its organization changed: public read caches drop the site. */
export const SiteChangedEvent = T.Object({
  id: T.String(),
  type: T.Literal(EVENT.siteChanged),
  created_at: DateTime,
  data: T.Object({ organization_id: T.String(), site: T.Union([T.String(), T.Null()]) }),
});
export type SiteChangedEvent = Static<typeof SiteChangedEvent>;

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

export const BusEvent = T.Union([
  StoryEvent,
  WebhookTestEvent,
  WebhookTestResultEvent,
  SiteChangedEvent,
  CachePurgedEvent,
]);
export type BusEvent = Static<typeof BusEvent>;
