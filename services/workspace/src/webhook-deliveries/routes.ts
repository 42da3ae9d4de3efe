import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import {
  deliveryOrganization,
  listDeliveryAttempts,
  resendDelivery,
} from "../webhook-endpoints/commands.ts";

/** Internal API: a delivery's attempt details; resend one delivery (through the webhooks service). */
export function webhookDeliveriesRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .get("/internal/v1/webhook_deliveries/:id/attempts", async ({ params }) => {
      const { organizationId } = await deliveryOrganization(deps, params.id);
      return listOf(await listDeliveryAttempts(deps, organizationId, params.id));
    })
    .post("/internal/v1/webhook_deliveries/:id/resend", async ({ params }) => {
      const { organizationId } = await deliveryOrganization(deps, params.id);
      return resendDelivery(deps, organizationId, params.id);
    });
}
