import type { Db } from "@newsroom/shared/db/index";
import { ApiError } from "@newsroom/shared/errors";
import type { InternalClient } from "@newsroom/shared/http/internal-client";
import type { WebhookDeliveryOut, WebhookEndpointOut } from "@newsroom/shared/records";
import type {
  DeliveryCountOut,
  EndpointCreateIn,
  EndpointRecoveryOut,
  EndpointTestOutcome,
  EndpointUpdateIn,
  SignatureCheckIn,
  SignatureVerdict,
  WebhookAttemptOut,
} from "@newsroom/shared/webhook-endpoint-commands";
import { audit } from "../audit.ts";
import { organizationOfWebhookEndpoint, ownerOfWebhookDelivery } from "./lookups.ts";

/**
 * Webhook endpoints as the workspace manages them: every command goes to the webhooks service's
 * internal API (the one writer of endpoints and deliveries, the holder of their secrets); the
 * workspace writes its own audit row once the command succeeded. Permission checks are the
 * callers' (the internal API trusts ADMIN_TOKEN; the pages check the person's role first).
 */
export interface EndpointCommandDeps {
  db: Db;
  calls: { webhooks: InternalClient };
}

interface ListOut<T> {
  data: T[];
}

const endpoints = (organizationId: string) =>
  `/internal/v1/orgs/${organizationId}/webhook-endpoints`;
const endpoint = (organizationId: string, id: string) =>
  `${endpoints(organizationId)}/${encodeURIComponent(id)}`;
const delivery = (organizationId: string, id: string) =>
  `/internal/v1/orgs/${organizationId}/webhook-deliveries/${encodeURIComponent(id)}`;

export type CreatedEndpoint = WebhookEndpointOut & { secret: string };

export async function listEndpoints(
  deps: EndpointCommandDeps,
  organizationId: string,
): Promise<WebhookEndpointOut[]> {
  return (
    await deps.calls.webhooks.call<ListOut<WebhookEndpointOut>>("GET", endpoints(organizationId))
  ).data;
}

export function getEndpoint(deps: EndpointCommandDeps, organizationId: string, id: string) {
  return deps.calls.webhooks.call<WebhookEndpointOut>("GET", endpoint(organizationId, id));
}

export async function createEndpoint(
  deps: EndpointCommandDeps,
  organizationId: string,
  input: EndpointCreateIn,
  actor = "admin",
): Promise<CreatedEndpoint> {
  const created = await deps.calls.webhooks.call<CreatedEndpoint>(
    "POST",
    endpoints(organizationId),
    {
      body: input,
    },
  );
  await audit(deps.db, organizationId, "webhook_endpoint.created", created.id, actor);
  return created;
}

/** Changes an endpoint's delivery options (rate, ordering); audited as `webhook_endpoint.updated`. */
export async function updateEndpointOptions(
  deps: EndpointCommandDeps,
  organizationId: string,
  id: string,
  input: EndpointUpdateIn,
  actor = "admin",
): Promise<WebhookEndpointOut> {
  const updated = await deps.calls.webhooks.call<WebhookEndpointOut>(
    "PATCH",
    endpoint(organizationId, id),
    { body: input },
  );
  await audit(deps.db, organizationId, "webhook_endpoint.updated", updated.id, actor);
  return updated;
}

/** Disable, enable or delete an endpoint; audited as `webhook_endpoint.{disabled,...}`. */
export async function changeEndpoint(
  deps: EndpointCommandDeps,
  organizationId: string,
  id: string,
  change: "disable" | "enable" | "delete",
  actor = "admin",
): Promise<WebhookEndpointOut> {
  const row =
    change === "delete"
      ? await deps.calls.webhooks.call<WebhookEndpointOut>("DELETE", endpoint(organizationId, id))
      : await deps.calls.webhooks.call<WebhookEndpointOut>(
          "POST",
          `${endpoint(organizationId, id)}/${change}`,
        );
  const action = { disable: "disabled", enable: "enabled", delete: "deleted" }[change];
  await audit(deps.db, organizationId, `webhook_endpoint.${action}`, row.id, actor);
  return row;
}

export async function rotateEndpointSecret(
  deps: EndpointCommandDeps,
  organizationId: string,
  id: string,
  actor = "admin",
): Promise<CreatedEndpoint> {
  const rotated = await deps.calls.webhooks.call<CreatedEndpoint>(
    "POST",
    `${endpoint(organizationId, id)}/rotate-secret`,
  );
  await audit(deps.db, organizationId, "webhook_endpoint.secret_rotated", rotated.id, actor);
  return rotated;
}

/** Sends the test event now; answers the endpoint and how the receiver took it. */
export function testEndpoint(deps: EndpointCommandDeps, organizationId: string, id: string) {
  return deps.calls.webhooks.call<WebhookEndpointOut & { test: EndpointTestOutcome }>(
    "POST",
    `${endpoint(organizationId, id)}/test`,
  );
}

export async function recoverEndpoint(
  deps: EndpointCommandDeps,
  organizationId: string,
  id: string,
  since: string | undefined,
  actor = "admin",
): Promise<EndpointRecoveryOut> {
  const recovered = await deps.calls.webhooks.call<EndpointRecoveryOut>(
    "POST",
    `${endpoint(organizationId, id)}/recover`,
    { body: since === undefined ? {} : { since } },
  );
  if (recovered.resent > 0) {
    const action = `webhook_endpoint.recovered:${recovered.resent}`;
    await audit(deps.db, organizationId, action, recovered.endpoint_id, actor);
  }
  return recovered;
}

export async function listEndpointDeliveries(
  deps: EndpointCommandDeps,
  organizationId: string,
  id: string,
  limit = 100,
): Promise<WebhookDeliveryOut[]> {
  const path = `${endpoint(organizationId, id)}/deliveries?limit=${limit}`;
  return (await deps.calls.webhooks.call<ListOut<WebhookDeliveryOut>>("GET", path)).data;
}

export async function deliveriesPerHour(
  deps: EndpointCommandDeps,
  organizationId: string,
  id: string,
  since: Date,
): Promise<DeliveryCountOut[]> {
  const path = `${endpoint(organizationId, id)}/deliveries-per-hour?since=${encodeURIComponent(since.toISOString())}`;
  return (await deps.calls.webhooks.call<ListOut<DeliveryCountOut>>("GET", path)).data;
}

export function getDelivery(deps: EndpointCommandDeps, organizationId: string, id: string) {
  return deps.calls.webhooks.call<WebhookDeliveryOut>("GET", delivery(organizationId, id));
}

export async function listDeliveryAttempts(
  deps: EndpointCommandDeps,
  organizationId: string,
  id: string,
): Promise<WebhookAttemptOut[]> {
  const path = `${delivery(organizationId, id)}/attempts`;
  return (await deps.calls.webhooks.call<ListOut<WebhookAttemptOut>>("GET", path)).data;
}

export async function resendDelivery(
  deps: EndpointCommandDeps,
  organizationId: string,
  id: string,
  actor = "admin",
): Promise<WebhookDeliveryOut> {
  const resent = await deps.calls.webhooks.call<WebhookDeliveryOut>(
    "POST",
    `${delivery(organizationId, id)}/resend`,
  );
  await audit(deps.db, organizationId, "webhook_delivery.resent", resent.id, actor);
  return resent;
}

/** The organization of an endpoint named by id alone; 404 when there is none. */
export async function endpointOrganization(deps: EndpointCommandDeps, id: string): Promise<string> {
  const organizationId = await organizationOfWebhookEndpoint(deps.db, id);
  if (!organizationId) throw new ApiError("not_found", "No such webhook endpoint.");
  return organizationId;
}

/** The organization of a delivery named by id alone; 404 when there is none. */
export async function deliveryOrganization(deps: EndpointCommandDeps, id: string) {
  const owner = await ownerOfWebhookDelivery(deps.db, id);
  if (!owner) throw new ApiError("not_found", "No such webhook delivery.");
  return owner;
}

/** Checks a pasted request's signature with the endpoint's secrets (which stay in webhooks). */
export function verifySignature(
  deps: EndpointCommandDeps,
  organizationId: string,
  id: string,
  pasted: SignatureCheckIn,
) {
  return deps.calls.webhooks.call<SignatureVerdict>(
    "POST",
    `${endpoint(organizationId, id)}/verify-signature`,
    { body: pasted },
  );
}
