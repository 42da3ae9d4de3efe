import { type Static, Type as T } from "@sinclair/typebox";
import { SUBSCRIBABLE_EVENT_TYPES } from "./events.ts";
import { NAME_MAX_LENGTH, SubscribableEventTypeSchema } from "./records.ts";

/**
 * The commands on webhook endpoints, as the webhooks service's internal API takes and answers
 * them: the workspace's internal API, CLI and pages send the same bodies (one validator).
 */

/** An organization may have this many endpoints at most. */
export const MAX_ENDPOINTS_PER_ORGANIZATION = 10;
/** How far back a recovery may reach. */
export const RECOVER_MAX_DAYS = 14;
/** The highest rate an endpoint may ask for, in deliveries per second. */
export const MAX_RATE_LIMIT_PER_SECOND = 1000;
/** In which order an endpoint gets events: as they come, or each story's in the order they happened. */
export const ENDPOINT_ORDERINGS = ["none", "story"] as const;
export type EndpointOrdering = (typeof ENDPOINT_ORDERINGS)[number];

/**
 * How requests to an endpoint authenticate beyond the signature: a bearer token, custom headers
 * (never the signature's or `content-type`: refused by name), or an OAuth 2.0 client-credentials
 * token the dispatcher fetches and caches. Sealed at rest; the record shows `auth_type` only.
 */
export const EndpointAuthIn = T.Union([
  T.Object({
    type: T.Literal("bearer"),
    token: T.String({ minLength: 1, maxLength: 4096 }),
  }),
  T.Object({
    type: T.Literal("headers"),
    headers: T.Record(T.String({ minLength: 1, maxLength: 100 }), T.String({ maxLength: 4096 }), {
      minProperties: 1,
      maxProperties: 20,
    }),
  }),
  T.Object({
    type: T.Literal("oauth2_client_credentials"),
    token_url: T.String({ minLength: 1, maxLength: 2048 }),
    client_id: T.String({ minLength: 1, maxLength: 1000 }),
    client_secret: T.String({ minLength: 1, maxLength: 4096 }),
    scope: T.Optional(T.String({ maxLength: 1000 })),
  }),
]);
export type EndpointAuthIn = Static<typeof EndpointAuthIn>;
export type EndpointAuthType = EndpointAuthIn["type"];

/** Deliveries per second at most; null for no limit of the endpoint's own. */
const RateLimitPerSecondIn = T.Union([
  T.Integer({ minimum: 1, maximum: MAX_RATE_LIMIT_PER_SECOND }),
  T.Null(),
]);
/** `story`: each story's events one at a time, in the order they happened. Default `none`. */
const OrderingIn = T.Union(ENDPOINT_ORDERINGS.map((value) => T.Literal(value)));

export const EndpointCreateIn = T.Object({
  url: T.String({ minLength: 1, maxLength: 2048 }),
  name: T.Optional(T.String({ minLength: 1, maxLength: NAME_MAX_LENGTH })),
  /** At most every subscribable type once. */
  events: T.Array(SubscribableEventTypeSchema, {
    minItems: 1,
    maxItems: SUBSCRIBABLE_EVENT_TYPES.length,
    uniqueItems: true,
  }),
  /** Topic slugs: only stories with one of them are delivered; null or absent for every story. */
  topics: T.Optional(
    T.Union([
      T.Array(T.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: 50,
        uniqueItems: true,
      }),
      T.Null(),
    ]),
  ),
  auth: T.Optional(EndpointAuthIn),
  rate_limit_per_second: T.Optional(RateLimitPerSecondIn),
  ordering: T.Optional(OrderingIn),
});
export type EndpointCreateIn = Static<typeof EndpointCreateIn>;

/** The options that can be changed after an endpoint is added; those left out stay as they are. */
export const EndpointUpdateIn = T.Object(
  {
    rate_limit_per_second: T.Optional(RateLimitPerSecondIn),
    ordering: T.Optional(OrderingIn),
  },
  { minProperties: 1 },
);
export type EndpointUpdateIn = Static<typeof EndpointUpdateIn>;

/** `since`: a date-time at most 14 days back (checked by the webhooks service, naming the field). */
export const EndpointRecoverIn = T.Object({ since: T.Optional(T.String({ maxLength: 64 })) });
export type EndpointRecoverIn = Static<typeof EndpointRecoverIn>;

/** How the test event went: the receiver's answer (2xx: accepted), how long it took, or why not. */
export const EndpointTestOutcome = T.Object({
  event_id: T.String(),
  status: T.Union([T.Literal("accepted"), T.Literal("failed")]),
  status_code: T.Union([T.Integer(), T.Null()]),
  duration_ms: T.Integer(),
  error: T.Union([T.String(), T.Null()]),
});
export type EndpointTestOutcome = Static<typeof EndpointTestOutcome>;

/** What a recovery resent. */
export const EndpointRecoveryOut = T.Object({
  endpoint_id: T.String(),
  since: T.String({ format: "date-time" }),
  resent: T.Integer(),
});
export type EndpointRecoveryOut = Static<typeof EndpointRecoveryOut>;

/** One attempt of a delivery (the workspace's people see these; the client API does not). */
export const WebhookAttemptOut = T.Object({
  object: T.Literal("webhook_attempt"),
  delivery_id: T.String(),
  attempt: T.Integer(),
  at: T.String({ format: "date-time" }),
  status_code: T.Union([T.Integer(), T.Null()]),
  duration_ms: T.Integer(),
  response_body: T.Union([T.String(), T.Null()]),
  reason: T.Union([T.String(), T.Null()]),
  /** Sent and not answered yet (or its sender died): no status, duration or reason yet. */
  in_flight: T.Boolean(),
});
export type WebhookAttemptOut = Static<typeof WebhookAttemptOut>;

/** An endpoint's deliveries made since a time, counted per hour (since the epoch) and status. */
export const DeliveryCountOut = T.Object({
  hour: T.Integer(),
  status: T.Union([T.Literal("pending"), T.Literal("delivered"), T.Literal("failed")]),
  count: T.Integer(),
});
export type DeliveryCountOut = Static<typeof DeliveryCountOut>;

/** How far `webhook-timestamp` may be from now, either way (Standard Webhooks' tolerance). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/** A webhook request as a receiver got it, pasted to check its signature. */
export const SignatureCheckIn = T.Object({
  /** One `name: value` a line; the three `webhook-*` headers are read. */
  headers: T.String({ maxLength: 10_000 }),
  /** Exactly as received. */
  body: T.String({ maxLength: 1_000_000 }),
});
export type SignatureCheckIn = Static<typeof SignatureCheckIn>;

/** Whether a pasted request's signature holds, and if not, which part is wrong. */
export const SignatureVerdict = T.Union([
  T.Object({ kind: T.Literal("valid") }),
  T.Object({ kind: T.Literal("missing_headers"), missing: T.Array(T.String()) }),
  T.Object({ kind: T.Literal("timestamp_outside"), secondsOff: T.Integer() }),
  T.Object({ kind: T.Literal("body_re_encoded") }),
  T.Object({ kind: T.Literal("wrong_secret") }),
]);
export type SignatureVerdict = Static<typeof SignatureVerdict>;
