import { ApiError } from "@newsroom/shared/errors";
import { webhookDeliveryRecord, webhookEndpointRecord } from "@newsroom/shared/webhook-records";
import { Elysia, t } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { listEndpointDeliveries, listWebhookEndpoints } from "./list.ts";
import { EndpointCreateIn, EndpointRecoverIn } from "./model.ts";
import { parseRecoverSince, recoverWebhookEndpoint } from "./resend.ts";
import { rotateWebhookEndpointSecret } from "./rotate-secret.ts";
import {
  createWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  organizationOfWebhookEndpoint,
  testWebhookEndpoint,
} from "./service.ts";
import { testAndWait } from "./test-results.ts";

/**
 * Internal API: an organization's endpoints and an endpoint's deliveries; create, disable, enable,
 * rotate its secret, test it, and recover its failed deliveries since a time.
 */
export function webhookEndpointsRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .get("/internal/v1/orgs/:org/webhook_endpoints", async ({ params }) =>
      listOf((await listWebhookEndpoints(deps.db, params.org)).map(webhookEndpointRecord)),
    )
    .get("/internal/v1/webhook_endpoints/:id/deliveries", async ({ params }) =>
      listOf((await listEndpointDeliveries(deps.db, params.id)).map(webhookDeliveryRecord)),
    )
    .post(
      "/internal/v1/orgs/:org/webhook_endpoints",
      async ({ params, body, set }) => {
        const { row, secret } = await createWebhookEndpoint(deps, params.org, body);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { ...webhookEndpointRecord(row), secret };
      },
      { body: EndpointCreateIn },
    )
    .post("/internal/v1/webhook_endpoints/:id/disable", async ({ params }) => {
      const row = await disableWebhookEndpoint(deps.db, params.id);
      return webhookEndpointRecord(row);
    })
    .post("/internal/v1/webhook_endpoints/:id/enable", async ({ params }) => {
      const row = await enableWebhookEndpoint(deps.db, params.id);
      return webhookEndpointRecord(row);
    })
    .post("/internal/v1/webhook_endpoints/:id/rotate-secret", async ({ params, set }) => {
      const { row, secret } = await rotateWebhookEndpointSecret(deps, params.id);
      set.headers["cache-control"] = "no-store";
      return { ...webhookEndpointRecord(row), secret };
    })
    .post(
      "/internal/v1/webhook_endpoints/:id/test",
      async ({ params, query }) => {
        if (query.wait !== "true") {
          return webhookEndpointRecord(await testWebhookEndpoint(deps, params.id));
        }
        const { endpoint, test } = await testAndWait(deps, params.id);
        return { ...webhookEndpointRecord(endpoint), test };
      },
      { query: t.Object({ wait: t.Optional(t.Union([t.Literal("true"), t.Literal("false")])) }) },
    )
    .post(
      "/internal/v1/webhook_endpoints/:id/recover",
      async ({ params, body }) => {
        const orgId = await organizationOfWebhookEndpoint(deps.db, params.id);
        if (!orgId) throw new ApiError("not_found", "No such webhook endpoint.");
        const since = parseRecoverSince(body?.since, new Date());
        const { resent } = await recoverWebhookEndpoint(deps.db, orgId, params.id, since);
        return { endpoint_id: params.id, since: since.toISOString(), resent };
      },
      { body: t.Optional(EndpointRecoverIn) },
    );
}
