import type { KeyScope } from "@newsroom/shared/api-keys";
import { JSON_FEED_TYPE, JsonFeed, RSS_TYPE } from "@newsroom/shared/feed-formats/model";
import {
  CLIENT_API_ERRORS,
  errorAnswer,
  type HeaderName,
  operation,
  type ResponseSpec,
} from "@newsroom/shared/openapi/operation";
import {
  ListOf,
  StoryDetailOut,
  StoryOut,
  WebhookDeliveryOut,
  WebhookEndpointOut,
} from "@newsroom/shared/records";
import { Type as T } from "@sinclair/typebox";

/**
 * The OpenAPI descriptions of the client API's routes, from the schemas that read their
 * parameters and shape their answers. Every route needs a key with its scope.
 */
const invalidParameters = errorAnswer(
  "An unknown status, a limit outside 1-100, a malformed cursor or id (`invalid_parameters`, `error.fields`).",
  ["Cache-Control"],
);

function clientApi(spec: {
  operationId: string;
  summary: string;
  description: string;
  scope: KeyScope;
  ok: ResponseSpec;
  extra?: Record<number, ResponseSpec>;
  queryKey?: boolean;
  tags?: string[];
  status?: "Live" | "Coming";
}) {
  return operation({
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags ?? ["Client API"],
    status: spec.status ?? "Live",
    scope: spec.scope,
    queryKey: spec.queryKey,
    responses: {
      200: {
        ...spec.ok,
        headers: ["RateLimit-Policy", "Cache-Control", ...(spec.ok.headers ?? [])],
      },
      ...spec.extra,
      ...CLIENT_API_ERRORS,
    },
  });
}

export const listStoriesOperation = clientApi({
  operationId: "listStories",
  summary: "List stories",
  description:
    "Every status of the key's organization, newest change first, keyset-paged. Empty until the organization's newsroom runs.",
  scope: "stories:read",
  ok: { description: "A page of stories.", schema: ListOf(StoryOut) },
  extra: { 400: invalidParameters },
});

export const getStoryOperation = clientApi({
  operationId: "getStory",
  summary: "One story with its body and approval decisions",
  description:
    "A story of the key's organization, any status, with its current body and its approval decisions.",
  scope: "stories:read",
  ok: { description: "The story.", schema: StoryDetailOut },
  extra: {
    400: invalidParameters,
    404: errorAnswer("No such story in the key's organization (`not_found`).", ["Cache-Control"]),
  },
});

export const approvalsOperation = clientApi({
  operationId: "listApprovals",
  summary: "The approval queue",
  description: "Stories in `review_required`, newest change first.",
  scope: "approvals:read",
  ok: { description: "A page of stories.", schema: ListOf(StoryOut) },
  extra: { 400: invalidParameters },
});

/** Feed readers poll: an `ETag` and `Last-Modified` with every feed, and 304 when unchanged. */
const CONDITIONAL_FEED =
  " Answers carry an `ETag` and, once a story exists, `Last-Modified` (the newest change of any of the organization's stories), with `Cache-Control: private, no-cache` and `Vary: Authorization`; a request with a matching `If-None-Match`, or without one an `If-Modified-Since` no older than `Last-Modified`, gets 304 without a body.";
const FEED_HEADERS: HeaderName[] = ["ETag", "Last-Modified", "Vary"];
const feedNotModified: Record<number, ResponseSpec> = {
  304: {
    description:
      "The feed has not changed since the `ETag` sent as `If-None-Match` (or the date sent as `If-Modified-Since`).",
    headers: [...FEED_HEADERS, "Cache-Control"],
  },
};

export const jsonFeedOperation = clientApi({
  operationId: "getJsonFeed",
  summary: "JSON Feed 1.1 of the 50 most recent published stories",
  description: `The key may be given as \`?key=\` only if its sole scope is \`feed:read\`.${CONDITIONAL_FEED}`,
  scope: "feed:read",
  queryKey: true,
  ok: {
    description: "The feed.",
    schema: JsonFeed,
    contentType: JSON_FEED_TYPE,
    headers: FEED_HEADERS,
  },
  extra: feedNotModified,
});

export const rssFeedOperation = clientApi({
  operationId: "getRssFeed",
  summary: "RSS 2.0 of the 50 most recent published stories",
  description: `With \`content:encoded\` bodies. The key may be given as \`?key=\` (feed:read only).${CONDITIONAL_FEED}`,
  scope: "feed:read",
  queryKey: true,
  ok: {
    description: "The feed.",
    schema: T.String(),
    contentType: RSS_TYPE,
    headers: FEED_HEADERS,
  },
  extra: feedNotModified,
});

export const webhookEndpointsOperation = clientApi({
  operationId: "listWebhookEndpoints",
  summary: "Webhook endpoints",
  description: "Every endpoint, enabled or not, newest first, in one page. Never the secret.",
  scope: "webhooks:read",
  tags: ["Webhooks"],
  status: "Coming",
  ok: { description: "All endpoints.", schema: ListOf(WebhookEndpointOut) },
});

export const webhookDeliveriesOperation = clientApi({
  operationId: "listWebhookDeliveries",
  summary: "Webhook delivery log",
  description: "One record per event per endpoint, newest first. Payloads are not kept.",
  scope: "webhooks:read",
  tags: ["Webhooks"],
  status: "Coming",
  ok: { description: "A page of deliveries.", schema: ListOf(WebhookDeliveryOut) },
  extra: { 400: invalidParameters },
});
