import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import { webhookDeliveriesOperation } from "../contract.ts";
import type { ClientApiDeps } from "../deps.ts";
import { DeliveryListQuery } from "./model.ts";
import { listWebhookDeliveries } from "./service.ts";

/** GET /v1/webhook_deliveries (scope webhooks:read): the delivery log, newest first. */
export function webhookDeliveriesRoutes(deps: ClientApiDeps) {
  return new Elysia({ name: "client-api:webhook-deliveries" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, "webhooks:read"),
    }))
    .get(
      "/v1/webhook_deliveries",
      ({ query, caller }) =>
        listWebhookDeliveries({ db: deps.db!, cursors: deps.cursors }, caller, {
          endpointId: query.endpoint_id,
          limit: query.limit,
          cursor: query.cursor,
        }),
      { query: DeliveryListQuery, detail: webhookDeliveriesOperation },
    );
}
