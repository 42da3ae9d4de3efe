import { ApiError } from "@newsroom/shared/errors";
import { Elysia, t } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { listDeliveryAttempts } from "./attempts.ts";
import { webhookDeliveryOut } from "./model.ts";
import {
  ownerOfWebhookDelivery,
  parseRecoverSince,
  recoverWebhookEndpoint,
  resendWebhookDelivery,
} from "./resend.ts";
import { organizationOfWebhookEndpoint } from "./service.ts";

/** `since`: a date-time at most 14 days back (checked by `parseRecoverSince`, naming the field). */
export const EndpointRecoverIn = t.Object({ since: t.Optional(t.String({ maxLength: 64 })) });

/**
 * Internal API: a delivery's attempt details; resend one delivery; recover an endpoint's failed
 * deliveries since a time.
 */
export function webhookResendRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .get("/internal/v1/webhook_deliveries/:id/attempts", async ({ params }) => {
      const owner = await ownerOfWebhookDelivery(deps.db, params.id);
      if (!owner) throw new ApiError("not_found", "No such webhook delivery.");
      const attempts = await listDeliveryAttempts(deps.db, owner.organizationId, params.id);
      return listOf(
        attempts.map((row) => ({
          object: "webhook_attempt",
          delivery_id: row.deliveryId,
          attempt: row.attempt,
          at: row.at.toISOString(),
          status_code: row.statusCode,
          duration_ms: row.durationMs,
          response_body: row.responseBody,
          reason: row.reason,
        })),
      );
    })
    .post("/internal/v1/webhook_deliveries/:id/resend", async ({ params }) =>
      webhookDeliveryOut(await resendWebhookDelivery(deps.db, params.id)),
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
