import { ApiError } from "@newsroom/shared/errors";
import { webhookDeliveryRecord } from "@newsroom/shared/webhook-records";
import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { listDeliveryAttempts } from "../webhook-endpoints/attempts.ts";
import { ownerOfWebhookDelivery, resendWebhookDelivery } from "../webhook-endpoints/resend.ts";

/** Internal API: a delivery's attempt details; resend one delivery. */
export function webhookDeliveriesRoutes(deps: WorkspaceDeps) {
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
      webhookDeliveryRecord(await resendWebhookDelivery(deps.db, params.id)),
    );
}
