import type { KeyScope } from "@newsroom/shared/api-keys";
import { JSON_FEED_TYPE, JsonFeed, RSS_TYPE } from "@newsroom/shared/feed-formats/model";
import {
  CLIENT_API_ERRORS,
  errorAnswer,
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
  summary: string;
  description?: string;
  scope: KeyScope;
  ok: ResponseSpec;
  extra?: Record<number, ResponseSpec>;
  queryKey?: boolean;
  tags?: string[];
  status?: "Live" | "Coming";
}) {
  return operation({
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
  summary: "List stories",
  description:
    "Every status of the key's organization, newest change first, keyset-paged. Empty until the organization's newsroom runs.",
  scope: "stories:read",
  ok: { description: "A page of stories.", schema: ListOf(StoryOut) },
  extra: { 400: invalidParameters },
});

export const getStoryOperation = clientApi({
  summary: "One story with its body and approval decisions",
  scope: "stories:read",
  ok: { description: "The story.", schema: StoryDetailOut },
  extra: {
    400: invalidParameters,
    404: errorAnswer("No such story in the key's organization (`not_found`).", ["Cache-Control"]),
  },
});

export const approvalsOperation = clientApi({
  summary: "The approval queue",
  description: "Stories in `review_required`, newest change first.",
  scope: "approvals:read",
  ok: { description: "A page of stories.", schema: ListOf(StoryOut) },
  extra: { 400: invalidParameters },
});

/** Feed readers poll: an `ETag` with every feed, and 304 for a matching `If-None-Match`. */
const CONDITIONAL_FEED =
  " Answers carry an `ETag` (`Cache-Control: private, no-cache`); a request with a matching `If-None-Match` gets 304 without a body.";
const feedNotModified: Record<number, ResponseSpec> = {
  304: {
    description: "The feed has not changed since the `ETag` sent as `If-None-Match`.",
    headers: ["ETag", "Cache-Control"],
  },
};

export const jsonFeedOperation = clientApi({
  summary: "JSON Feed 1.1 of the 50 most recent published stories",
  description: `The key may be given as \`?key=\` only if its sole scope is \`feed:read\`.${CONDITIONAL_FEED}`,
  scope: "feed:read",
  queryKey: true,
  ok: {
    description: "The feed.",
    schema: JsonFeed,
    contentType: JSON_FEED_TYPE,
    headers: ["ETag"],
  },
  extra: feedNotModified,
});

export const rssFeedOperation = clientApi({
  summary: "RSS 2.0 of the 50 most recent published stories",
  description: `With \`content:encoded\` bodies. The key may be given as \`?key=\` (feed:read only).${CONDITIONAL_FEED}`,
  scope: "feed:read",
  queryKey: true,
  ok: { description: "The feed.", schema: T.String(), contentType: RSS_TYPE, headers: ["ETag"] },
  extra: feedNotModified,
});

export const webhookEndpointsOperation = clientApi({
  summary: "Webhook endpoints",
  description: "Every endpoint, enabled or not, newest first, in one page. Never the secret.",
  scope: "webhooks:read",
  tags: ["Webhooks"],
  status: "Coming",
  ok: { description: "All endpoints.", schema: ListOf(WebhookEndpointOut) },
});

export const webhookDeliveriesOperation = clientApi({
  summary: "Webhook delivery log",
  description: "One record per event per endpoint, newest first. Payloads are not kept.",
  scope: "webhooks:read",
  tags: ["Webhooks"],
  status: "Coming",
  ok: { description: "A page of deliveries.", schema: ListOf(WebhookDeliveryOut) },
  extra: { 400: invalidParameters },
});
