import {
  errorAnswer,
  type HeaderName,
  type OperationSpec,
  operation,
  type ResponseSpec,
} from "@newsroom/shared/openapi/operation";
import { ErrorOut } from "@newsroom/shared/records";
import { type TSchema, Type as t } from "@sinclair/typebox";
import { ConfirmTokenIn } from "./confirmations/tokens.ts";
import { StatusSubscribeIn } from "./status/model.ts";

/**
 * OpenAPI descriptions of the forms routes, built from the same TypeBox schemas that validate
 * the bodies. Every form body is accepted as JSON, urlencoded or multipart.
 */
export const FORM_CONTENT_TYPES = [
  "application/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
];

const NO_STORE: HeaderName[] = ["Cache-Control"];

export const AcceptedOut = t.Object({ status: t.Literal("accepted") });
const StatusOut = (...values: string[]) =>
  t.Object({ status: t.Union(values.map((value) => t.Literal(value))) });
/** A page for a browser; an Error record (or JSON) for clients that ask for JSON. */
const HTML = (description: string): ResponseSpec => ({
  description,
  content: { "text/html": t.String(), "application/json": ErrorOut },
  headers: NO_STORE,
});

/** A page for a browser, JSON for `Accept: application/json`. */
const pageOrJson = (description: string, schema: TSchema): ResponseSpec => ({
  description,
  content: { "text/html": t.String(), "application/json": schema },
  headers: NO_STORE,
});

const FORM_ERRORS: Record<number, ResponseSpec> = {
  413: errorAnswer("The body is over 64 KiB (`body_too_large`).", NO_STORE),
  415: errorAnswer("The body is neither JSON nor form data (`unsupported_body`).", NO_STORE),
  422: errorAnswer("Invalid fields, each named in `error.fields` (`validation_failed`).", NO_STORE),
  429: errorAnswer("More than 5 submissions a minute from one client.", [
    "Retry-After",
    ...NO_STORE,
  ]),
  502: errorAnswer("The email provider refused; retry with the same `submission_id`.", NO_STORE),
  503: errorAnswer("Forms are not configured here (`forms_unavailable`).", NO_STORE),
};

/** A website form: 202 accepted (also, silently, for automated-looking submissions). */
export function formOperation(spec: {
  operationId: string;
  summary: string;
  description: string;
  schema: TSchema;
  tags?: string[];
}) {
  return operation({
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags ?? ["Forms"],
    status: "Live",
    requestBody: { schema: spec.schema, contentTypes: FORM_CONTENT_TYPES },
    responses: {
      202: {
        description:
          "Queued: one email batch per `submission_id`. A repeat, or a submission that looks automated, gets the identical answer.",
        schema: AcceptedOut,
        headers: NO_STORE,
      },
      ...FORM_ERRORS,
    },
  });
}

export const digestConfirmOperation = operation({
  operationId: "confirmDigestSubscription",
  summary: "Confirm a digest subscription",
  description:
    "Joins the digest, then sends the welcome email. A used link answers confirmed again.",
  tags: ["Newsletters"],
  status: "Live",
  requestBody: {
    schema: ConfirmTokenIn,
    contentTypes: ["application/json", "application/x-www-form-urlencoded"],
  },
  responses: {
    200: pageOrJson("Confirmed (a page for a browser's form post).", StatusOut("confirmed")),
    410: pageOrJson("Unknown, malformed, expired or another list's token.", StatusOut("expired")),
    413: FORM_ERRORS[413]!,
    422: errorAnswer("The body could not be read.", NO_STORE),
    415: FORM_ERRORS[415]!,
    429: errorAnswer("Too many attempts from one client.", ["Retry-After", ...NO_STORE]),
    502: errorAnswer("The welcome email was refused; the link stays usable.", NO_STORE),
    503: FORM_ERRORS[503]!,
  },
});

export const organizationSubscribeOperation = operation({
  operationId: "subscribeToOrganizationNewsletter",
  summary: "Subscribe to an organization's newsletter from its website",
  pathParameters: {
    org: t.String({ maxLength: 64, pattern: "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$" }),
  },
  description:
    "Origin (or Referer) must be an allowed website of the organization or its hosted newsroom. Double opt-in; single opt-in only behind a verified human-check token. A form post without `Accept: application/json` is answered 303 to its `redirect` when that is on an allowed origin (else to the posting page) with `?newsletter=pending|invalid|subscribed|closed`, and for `invalid` `&newsletter_fields=` naming the fields at fault (`email`, `consent`, `human_check_token`, `redirect`, ...).",
  tags: ["Newsletters"],
  status: "Live",
  requestBody: {
    schema: t.Object({}, { additionalProperties: true }),
    contentTypes: FORM_CONTENT_TYPES,
  },
  responses: {
    202: {
      description:
        "Pending (or subscribed behind a human check); identical whatever the address's state.",
      schema: StatusOut("pending", "subscribed"),
      headers: NO_STORE,
    },
    303: {
      description: "A form post's outcome, back to an allowed page.",
      headers: ["Location", ...NO_STORE],
    },
    400: errorAnswer("A malformed organization slug.", NO_STORE),
    403: errorAnswer("The origin is not allowed (`origin_not_allowed`).", NO_STORE),
    404: errorAnswer("No enabled newsletter for the organization (`not_found`).", NO_STORE),
    ...FORM_ERRORS,
  },
});

export const organizationPreflightOperation = operation({
  operationId: "preflightOrganizationSubscribe",
  summary: "CORS preflight of the organization subscribe route",
  description:
    "What a browser asks before posting the subscribe form from the organization's website: allowed only for an origin the organization listed.",
  pathParameters: {
    org: t.String({ maxLength: 64, pattern: "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$" }),
  },
  tags: ["Newsletters"],
  status: "Live",
  responses: {
    204: { description: "Allowed: `Access-Control-Allow-*` for that origin only." },
    400: errorAnswer("A malformed organization slug.", NO_STORE),
    403: errorAnswer("The origin is not allowed.", NO_STORE),
    404: errorAnswer("No enabled newsletter for the organization.", NO_STORE),
  },
});

export const confirmPageOperation = operation({
  operationId: "getNewsletterConfirmationPage",
  summary: "Organization newsletter confirmation page",
  description: "An HTML page with one button that POSTs the token. Opening it never subscribes.",
  tags: ["Newsletters"],
  status: "Live",
  responses: {
    200: HTML("The page, or already confirmed."),
    410: HTML("Unknown, used or expired link."),
    429: HTML("Too many attempts."),
    503: HTML("Newsletters are not configured here."),
  },
});

export const confirmPostOperation = operation({
  operationId: "confirmOrganizationSubscription",
  summary: "Confirm an organization newsletter subscription",
  description:
    "Adds the address to the organization's list, removes it from this service's database and sends the welcome email. Idempotent. A page for a browser; JSON with `Accept: application/json`. A body without a valid `t` is answered like an unknown link (410).",
  tags: ["Newsletters"],
  status: "Live",
  requestBody: {
    schema: ConfirmTokenIn,
    contentTypes: ["application/x-www-form-urlencoded", "multipart/form-data", "application/json"],
  },
  responses: {
    200: pageOrJson("Confirmed.", StatusOut("confirmed")),
    303: {
      description: "Back to the website with `?newsletter=confirmed`.",
      headers: ["Location", ...NO_STORE],
    },
    410: pageOrJson(
      "Unknown, used or expired link; also a body with no valid `t` (missing, not a string, or a body that is not UTF-8 or not well-formed).",
      StatusOut("expired"),
    ),
    413: FORM_ERRORS[413]!,
    415: FORM_ERRORS[415]!,
    429: HTML("Too many attempts."),
    502: HTML("The email provider failed; the link stays usable."),
    503: HTML("Newsletters are not configured here."),
  },
});

export const unsubscribePageOperation = operation({
  operationId: "getDigestUnsubscribePage",
  summary: "Digest unsubscribe page",
  description: "A page with one button; opening it changes nothing.",
  tags: ["Newsletters"],
  status: "Live",
  responses: {
    200: HTML("The page, or already unsubscribed."),
    404: HTML("Unknown or forged link."),
  },
});

export const unsubscribePostOperation = operation({
  operationId: "unsubscribeFromDigest",
  summary: "Unsubscribe from the digest (RFC 8058 one-click)",
  description:
    "Takes the signed token from the page's form or from a mail client's one-click `List-Unsubscribe-Post`; unsubscribing twice answers the same.",
  tags: ["Newsletters"],
  status: "Live",
  requestBody: {
    schema: t.Object({ t: t.Optional(t.String()) }, { additionalProperties: true }),
    contentTypes: ["application/x-www-form-urlencoded", "multipart/form-data"],
  },
  responses: {
    200: pageOrJson("Unsubscribed.", StatusOut("unsubscribed")),
    404: HTML("Unknown or forged link."),
    422: errorAnswer("The body could not be read.", NO_STORE),
  },
});

export const statusSubscribeOperation = operation({
  operationId: "subscribeToStatusUpdates",
  summary: "Subscribe to the status page's incident updates by email (double opt-in)",
  description:
    "The same answer whether the address is new, pending, subscribed or throttled (one confirmation an hour, two a day). A form post without `Accept: application/json` (the status page's form) is answered 303 to `/status?subscribed=1`, or `/status?subscribed=invalid` for a bad address.",
  tags: ["Newsletters"],
  status: "Live",
  requestBody: { schema: StatusSubscribeIn, contentTypes: FORM_CONTENT_TYPES },
  responses: {
    202: {
      description:
        "Queued: one confirmation email per `submission_id` unless throttled. A repeat, or a submission that looks automated, gets the identical answer.",
      schema: AcceptedOut,
      headers: NO_STORE,
    },
    303: {
      description: "A form post's outcome, back to the status page.",
      headers: ["Location", ...NO_STORE],
    },
    ...FORM_ERRORS,
  },
});

export const statusConfirmPageOperation = operation({
  operationId: "getStatusConfirmationPage",
  summary: "Status updates confirmation page",
  description: "An HTML page with one button that POSTs the token. Opening it never subscribes.",
  tags: ["Newsletters"],
  status: "Live",
  responses: {
    200: HTML("The page, or already confirmed."),
    410: HTML("Unknown, expired or another list's link."),
    429: HTML("Too many attempts."),
    503: HTML("Email is not configured here."),
  },
});

export const statusConfirmPostOperation = operation({
  operationId: "confirmStatusSubscription",
  summary: "Confirm a subscription to status updates",
  description:
    "Adds the address to the status page's subscribers and sends the welcome email. A used link answers confirmed again. A page for a browser; JSON with `Accept: application/json`.",
  tags: ["Newsletters"],
  status: "Live",
  requestBody: {
    schema: ConfirmTokenIn,
    contentTypes: ["application/x-www-form-urlencoded", "multipart/form-data", "application/json"],
  },
  responses: {
    200: pageOrJson("Confirmed.", StatusOut("confirmed")),
    410: pageOrJson(
      "Unknown, malformed, expired or another list's token; also a body with no valid `t`.",
      StatusOut("expired"),
    ),
    413: FORM_ERRORS[413]!,
    415: FORM_ERRORS[415]!,
    429: HTML("Too many attempts."),
    502: HTML("The welcome email was refused; the link stays usable."),
    503: HTML("Email is not configured here."),
  },
});

export const statusUnsubscribePageOperation = operation({
  operationId: "getStatusUnsubscribePage",
  summary: "Status updates unsubscribe page",
  description: "A page with one button; opening it changes nothing.",
  tags: ["Newsletters"],
  status: "Live",
  responses: {
    200: HTML("The page, or already unsubscribed."),
    404: HTML("Unknown or forged link."),
  },
});

export const statusUnsubscribePostOperation = operation({
  operationId: "unsubscribeFromStatusUpdates",
  summary: "Unsubscribe from status updates (RFC 8058 one-click)",
  description:
    "Takes the signed token from the page's form or from a mail client's one-click `List-Unsubscribe-Post`; the address is forgotten. Unsubscribing twice answers the same.",
  tags: ["Newsletters"],
  status: "Live",
  requestBody: {
    schema: t.Object({ t: t.Optional(t.String()) }, { additionalProperties: true }),
    contentTypes: ["application/x-www-form-urlencoded", "multipart/form-data"],
  },
  responses: {
    200: pageOrJson("Unsubscribed.", StatusOut("unsubscribed")),
    404: HTML("Unknown or forged link."),
    422: errorAnswer("The body could not be read.", NO_STORE),
  },
});

export const embedOperation = operation({
  operationId: "getNewsletterEmbedScript",
  summary: "embed.js for client websites",
  description:
    "Enhances `form[data-newsletter]` to post with fetch and show the outcome in place. No dependencies, no cookies.",
  tags: ["Newsletters"],
  status: "Live",
  responses: {
    200: {
      description: "The script.",
      schema: t.String(),
      contentType: "text/javascript",
      headers: ["Cache-Control"],
    },
  },
});

export type { OperationSpec };
