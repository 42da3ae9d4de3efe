import type { InsecureTargets } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { errorAnswer, operation, type ResponseSpec } from "@newsroom/shared/openapi/operation";
import { WebhookDeliveryOut, WebhookEndpointOut } from "@newsroom/shared/records";
import {
  DeliveryCountOut,
  EndpointCreateIn,
  EndpointRecoverIn,
  EndpointRecoveryOut,
  EndpointTestOutcome,
  EndpointUpdateIn,
  SignatureCheckIn,
  SignatureVerdict,
  WebhookAttemptOut,
} from "@newsroom/shared/webhook-endpoint-commands";
import { webhookDeliveryRecord, webhookEndpointRecord } from "@newsroom/shared/webhook-records";
import { signingSecrets } from "@newsroom/shared/webhook-secrets";
import { Elysia, t } from "elysia";
import type { OAuthTokens } from "../delivery/endpoint-auth.ts";
import type { HostResolver } from "../delivery/target-guard.ts";
import { sendTestEvent } from "../delivery/test-event.ts";
import {
  deliveriesPerHour,
  findWebhookDelivery,
  findWebhookEndpoint,
  listDeliveryAttempts,
  listEndpointDeliveries,
  listWebhookEndpoints,
} from "./list.ts";
import { organizationIdOf } from "./organization.ts";
import { parseRecoverSince, recoverWebhookEndpoint, resendWebhookDelivery } from "./resend.ts";
import { rotateWebhookEndpointSecret } from "./rotate-secret.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  updateWebhookEndpointOptions,
} from "./service.ts";
import { parsePastedHeaders, verifyPastedRequest } from "./verify-signature.ts";

export interface EndpointRoutesDeps {
  db: Db;
  secretsKey: Buffer;
  /** Which endpoint URLs are accepted (WEBHOOK_ALLOW_INSECURE_TARGETS, ..._PORTS). */
  allowInsecureTargets: InsecureTargets;
  /** Whether the test event may go to http://127.0.0.1, as the delivery worker's attempts may. */
  sendToInsecureTargets: boolean;
  /** How long a receiver has to answer the test event (the attempts' timeout). */
  attemptTimeoutMs?: number;
  resolveHost?: HostResolver;
  /** The OAuth tokens of endpoints that use them (the delivery worker's). */
  tokens: OAuthTokens;
}

const TAGS = ["Webhook endpoints (internal)"];
const ENDPOINTS = "/internal/v1/orgs/:org/webhook-endpoints";
const DELIVERIES = "/internal/v1/orgs/:org/webhook-deliveries";

const OrgParams = t.Object({ org: t.String({ maxLength: 200 }) });
const ItemParams = t.Object({
  org: t.String({ maxLength: 200 }),
  id: t.String({ maxLength: 100 }),
});
const ListOf = <T extends Parameters<typeof t.Array>[0]>(item: T) =>
  t.Object({
    object: t.Literal("list"),
    data: t.Array(item),
    has_more: t.Boolean(),
    next_cursor: t.Null(),
  });
const EndpointWithSecret = t.Composite([WebhookEndpointOut, t.Object({ secret: t.String() })]);
const EndpointWithTest = t.Composite([WebhookEndpointOut, t.Object({ test: EndpointTestOutcome })]);

/** The answers every route here can give besides its own. */
const COMMON: Record<number, ResponseSpec> = {
  401: errorAnswer("No or a wrong ADMIN_TOKEN (`unauthorized`).", ["WWW-Authenticate"]),
  404: errorAnswer(
    "No such organization, or no such endpoint or delivery in it (`not_found`): another organization's answers the same.",
  ),
};

function doc(summary: string, ok: ResponseSpec, more: Record<number, ResponseSpec> = {}) {
  const status = ok.schema === undefined ? 204 : 200;
  return operation({ summary, tags: TAGS, responses: { [status]: ok, ...COMMON, ...more } });
}

function listOf<T>(data: T[]) {
  return { object: "list" as const, data, has_more: false, next_cursor: null };
}

/**
 * The webhooks service's internal API: the one writer of webhook endpoints and deliveries, for
 * the workspace (its internal API, CLI and pages), which checks people's permissions and writes
 * its own audit rows. Every route is behind ADMIN_TOKEN (the app's hook) and names the
 * organization (id or slug) first: each lookup is scoped by it.
 */
export function endpointRoutes(deps: EndpointRoutesDeps) {
  const { db } = deps;
  const org = (idOrSlug: string) => organizationIdOf(db, idOrSlug);
  return new Elysia()
    .get(
      ENDPOINTS,
      async ({ params }) =>
        listOf((await listWebhookEndpoints(db, await org(params.org))).map(webhookEndpointRecord)),
      {
        params: OrgParams,
        detail: doc("The organization's webhook endpoints, oldest first", {
          description: "A list of WebhookEndpoint records.",
          schema: ListOf(WebhookEndpointOut),
        }),
      },
    )
    .post(
      ENDPOINTS,
      async ({ params, body, set }) => {
        const { row, secret } = await createWebhookEndpoint(deps, await org(params.org), body);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { ...webhookEndpointRecord(row), secret };
      },
      {
        params: OrgParams,
        body: EndpointCreateIn,
        detail: operation({
          summary: "Add a webhook endpoint; its `whsec_` secret is in this answer only",
          tags: TAGS,
          responses: {
            201: { description: "The endpoint and its secret.", schema: EndpointWithSecret },
            ...COMMON,
            409: errorAnswer("The organization has 10 endpoints already (`limit_reached`)."),
            422: errorAnswer(
              "A URL the spec's rules refuse, naming the field (`validation_failed`).",
            ),
          },
        }),
      },
    )
    .get(
      `${ENDPOINTS}/:id`,
      async ({ params }) =>
        webhookEndpointRecord(await findWebhookEndpoint(db, await org(params.org), params.id)),
      {
        params: ItemParams,
        detail: doc("One webhook endpoint", {
          description: "The endpoint.",
          schema: WebhookEndpointOut,
        }),
      },
    )
    .patch(
      `${ENDPOINTS}/:id`,
      async ({ params, body }) =>
        webhookEndpointRecord(
          await updateWebhookEndpointOptions(db, await org(params.org), params.id, body),
        ),
      {
        params: ItemParams,
        body: EndpointUpdateIn,
        detail: doc(
          "Change an endpoint's delivery options (`rate_limit_per_second`, `ordering`)",
          { description: "The endpoint as it is now.", schema: WebhookEndpointOut },
          {
            422: errorAnswer(
              "No option, or one out of range, naming the field (`validation_failed`).",
            ),
          },
        ),
      },
    )
    .delete(
      `${ENDPOINTS}/:id`,
      async ({ params }) =>
        webhookEndpointRecord(await deleteWebhookEndpoint(db, await org(params.org), params.id)),
      {
        params: ItemParams,
        detail: doc("Delete an endpoint with its delivery log", {
          description: "The endpoint as it was.",
          schema: WebhookEndpointOut,
        }),
      },
    )
    .post(
      `${ENDPOINTS}/:id/disable`,
      async ({ params }) =>
        webhookEndpointRecord(await disableWebhookEndpoint(db, await org(params.org), params.id)),
      {
        params: ItemParams,
        detail: doc("Stop deliveries to an endpoint", {
          description: "The endpoint, disabled (`by_client`).",
          schema: WebhookEndpointOut,
        }),
      },
    )
    .post(
      `${ENDPOINTS}/:id/enable`,
      async ({ params }) =>
        webhookEndpointRecord(await enableWebhookEndpoint(db, await org(params.org), params.id)),
      {
        params: ItemParams,
        detail: doc("Resume deliveries to an endpoint; its failure count starts again", {
          description: "The endpoint, enabled.",
          schema: WebhookEndpointOut,
        }),
      },
    )
    .post(
      `${ENDPOINTS}/:id/rotate-secret`,
      async ({ params, set }) => {
        const { row, secret } = await rotateWebhookEndpointSecret(
          deps,
          await org(params.org),
          params.id,
        );
        set.headers["cache-control"] = "no-store";
        return { ...webhookEndpointRecord(row), secret };
      },
      {
        params: ItemParams,
        detail: doc("A new secret, in this answer only; the old one signs too for 24 hours", {
          description: "The endpoint and its new secret.",
          schema: EndpointWithSecret,
        }),
      },
    )
    .post(
      `${ENDPOINTS}/:id/test`,
      async ({ params }) => {
        const endpoint = await findWebhookEndpoint(db, await org(params.org), params.id);
        const test = await sendTestEvent(
          {
            db,
            secretsKey: deps.secretsKey,
            timeoutMs: deps.attemptTimeoutMs,
            allowInsecureTargets: deps.sendToInsecureTargets,
            resolve: deps.resolveHost,
            tokens: deps.tokens,
          },
          endpoint,
        );
        return { ...webhookEndpointRecord(endpoint), test };
      },
      {
        params: ItemParams,
        detail: doc("Send `webhook.test` to the endpoint now and answer how the receiver took it", {
          description:
            "The endpoint and the outcome: `accepted` (a 2xx within 10 s) or `failed` with the status or the reason. Never recorded or retried.",
          schema: EndpointWithTest,
        }),
      },
    )
    .post(
      `${ENDPOINTS}/:id/recover`,
      async ({ params, body }) => {
        const organizationId = await org(params.org);
        const endpoint = await findWebhookEndpoint(db, organizationId, params.id);
        const since = parseRecoverSince(body?.since, new Date());
        const { resent } = await recoverWebhookEndpoint(db, organizationId, endpoint.id, since);
        return { endpoint_id: endpoint.id, since: since.toISOString(), resent };
      },
      {
        params: ItemParams,
        body: t.Optional(EndpointRecoverIn),
        detail: doc(
          "Resend the endpoint's failed deliveries since a time (at most 14 days back)",
          { description: "How many were resent.", schema: EndpointRecoveryOut },
          {
            409: errorAnswer("The endpoint is disabled (`conflict`)."),
            422: errorAnswer("`since` missing, malformed or too old (`validation_failed`)."),
          },
        ),
      },
    )
    .post(
      `${ENDPOINTS}/:id/verify-signature`,
      async ({ params, body }) => {
        const endpoint = await findWebhookEndpoint(db, await org(params.org), params.id);
        const now = new Date();
        return verifyPastedRequest(
          { headers: parsePastedHeaders(body.headers), body: body.body },
          signingSecrets(endpoint, deps.secretsKey, now),
          now,
        );
      },
      {
        params: ItemParams,
        body: SignatureCheckIn,
        detail: doc(
          "Check a pasted request's signature with the endpoint's secrets, never showing them",
          { description: "Valid, or which part is wrong.", schema: SignatureVerdict },
        ),
      },
    )
    .get(
      `${ENDPOINTS}/:id/deliveries`,
      async ({ params, query }) => {
        const rows = await listEndpointDeliveries(
          db,
          await org(params.org),
          params.id,
          query.limit ?? 100,
        );
        return listOf(rows.map(webhookDeliveryRecord));
      },
      {
        params: ItemParams,
        query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })) }),
        detail: doc("The endpoint's latest deliveries, newest first", {
          description: "A list of WebhookDelivery records.",
          schema: ListOf(WebhookDeliveryOut),
        }),
      },
    )
    .get(
      `${ENDPOINTS}/:id/deliveries-per-hour`,
      async ({ params, query }) =>
        listOf(
          await deliveriesPerHour(db, await org(params.org), params.id, new Date(query.since)),
        ),
      {
        params: ItemParams,
        query: t.Object({ since: t.String({ format: "date-time" }) }),
        detail: doc("The endpoint's deliveries since a time, counted per hour and status", {
          description: "Hours since the epoch, each status and its count.",
          schema: ListOf(DeliveryCountOut),
        }),
      },
    )
    .get(
      `${DELIVERIES}/:id`,
      async ({ params }) =>
        webhookDeliveryRecord(await findWebhookDelivery(db, await org(params.org), params.id)),
      {
        params: ItemParams,
        detail: doc("One delivery", { description: "The delivery.", schema: WebhookDeliveryOut }),
      },
    )
    .get(
      `${DELIVERIES}/:id/attempts`,
      async ({ params }) => {
        const attempts = await listDeliveryAttempts(db, await org(params.org), params.id);
        return listOf(
          attempts.map((row) => ({
            object: "webhook_attempt" as const,
            delivery_id: row.deliveryId,
            attempt: row.attempt,
            at: row.at.toISOString(),
            status_code: row.statusCode,
            duration_ms: row.durationMs,
            response_body: row.responseBody,
            reason: row.reason,
            in_flight: row.inFlight,
          })),
        );
      },
      {
        params: ItemParams,
        detail: doc("A delivery's attempts of the last 30 days, newest first", {
          description: "Time, status code, duration, the answer's first 1 KiB and the reason.",
          schema: ListOf(WebhookAttemptOut),
        }),
      },
    )
    .post(
      `${DELIVERIES}/:id/resend`,
      async ({ params }) =>
        webhookDeliveryRecord(await resendWebhookDelivery(db, await org(params.org), params.id)),
      {
        params: ItemParams,
        detail: doc(
          "Send a failed or delivered delivery again: a new attempt series, the same `webhook-id`",
          { description: "The delivery, pending.", schema: WebhookDeliveryOut },
          { 409: errorAnswer("The delivery is pending, or its endpoint disabled (`conflict`).") },
        ),
      },
    );
}
