import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import { webhookEndpointsOperation } from "../contract.ts";
import type { ClientApiDeps } from "../deps.ts";
import { listWebhookEndpoints } from "./service.ts";

/** GET /v1/webhook_endpoints (scope webhooks:read): one page, every endpoint, newest first. */
export function webhookEndpointsRoutes(deps: ClientApiDeps) {
  return new Elysia({ name: "client-api:webhook-endpoints" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, "webhooks:read"),
    }))
    .get("/v1/webhook_endpoints", ({ caller }) => listWebhookEndpoints(deps.db!, caller), {
      detail: webhookEndpointsOperation,
    });
}
