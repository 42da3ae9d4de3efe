import {
  EndpointCreateIn,
  EndpointRecoverIn,
  EndpointUpdateIn,
} from "@newsroom/shared/webhook-endpoint-commands";
import { Elysia, t } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { findOrganization } from "../resolve.ts";
import {
  changeEndpoint,
  createEndpoint,
  endpointOrganization,
  listEndpointDeliveries,
  listEndpoints,
  recoverEndpoint,
  rotateEndpointSecret,
  testEndpoint,
  updateEndpointOptions,
} from "./commands.ts";

/**
 * Internal API: an organization's endpoints and an endpoint's deliveries; create, change the
 * delivery options, disable, enable,
 * rotate its secret, test it, and recover its failed deliveries since a time. Each is a command
 * to the webhooks service (see commands.ts); the workspace audits what succeeded.
 */
export function webhookEndpointsRoutes(deps: WorkspaceDeps) {
  const orgId = async (idOrSlug: string) => (await findOrganization(deps.db, idOrSlug)).id;
  return new Elysia()
    .get("/internal/v1/orgs/:org/webhook_endpoints", async ({ params }) =>
      listOf(await listEndpoints(deps, await orgId(params.org))),
    )
    .get("/internal/v1/webhook_endpoints/:id/deliveries", async ({ params }) => {
      const organizationId = await endpointOrganization(deps, params.id);
      return listOf(await listEndpointDeliveries(deps, organizationId, params.id));
    })
    .post(
      "/internal/v1/orgs/:org/webhook_endpoints",
      async ({ params, body, set }) => {
        const created = await createEndpoint(deps, await orgId(params.org), body);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return created;
      },
      { body: EndpointCreateIn },
    )
    .patch(
      "/internal/v1/webhook_endpoints/:id",
      async ({ params, body }) =>
        updateEndpointOptions(deps, await endpointOrganization(deps, params.id), params.id, body),
      { body: EndpointUpdateIn },
    )
    .post("/internal/v1/webhook_endpoints/:id/disable", async ({ params }) =>
      changeEndpoint(deps, await endpointOrganization(deps, params.id), params.id, "disable"),
    )
    .post("/internal/v1/webhook_endpoints/:id/enable", async ({ params }) =>
      changeEndpoint(deps, await endpointOrganization(deps, params.id), params.id, "enable"),
    )
    .post("/internal/v1/webhook_endpoints/:id/rotate-secret", async ({ params, set }) => {
      const organizationId = await endpointOrganization(deps, params.id);
      const rotated = await rotateEndpointSecret(deps, organizationId, params.id);
      set.headers["cache-control"] = "no-store";
      return rotated;
    })
    .post(
      "/internal/v1/webhook_endpoints/:id/test",
      // The webhooks service sends the test event and answers how the receiver took it; `wait`
      // is still accepted (the answer always waits now).
      async ({ params }) =>
        testEndpoint(deps, await endpointOrganization(deps, params.id), params.id),
      { query: t.Object({ wait: t.Optional(t.Union([t.Literal("true"), t.Literal("false")])) }) },
    )
    .post(
      "/internal/v1/webhook_endpoints/:id/recover",
      async ({ params, body }) => {
        const organizationId = await endpointOrganization(deps, params.id);
        return recoverEndpoint(deps, organizationId, params.id, body?.since);
      },
      { body: t.Optional(EndpointRecoverIn) },
    );
}
