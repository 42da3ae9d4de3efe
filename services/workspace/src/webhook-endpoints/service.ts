import type { EventBus } from "@newsroom/shared/bus/index";
import type { InsecureTargets } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { webhookDeliveries, webhookEndpoints } from "@newsroom/shared/db/schema";
import { ApiError, validationFailed } from "@newsroom/shared/errors";
import { EVENT, type WebhookEventType } from "@newsroom/shared/events";
import { isUuid, newId } from "@newsroom/shared/ids";
import { newWebhookSecret, seal } from "@newsroom/shared/secret-box";
import { webhookSecretHint } from "@newsroom/shared/webhook-records";
import { and, count, eq, gte, sql } from "drizzle-orm";
import { audit } from "../audit.ts";
import { findOrganization } from "../resolve.ts";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "./model.ts";
import { checkEndpointUrl } from "./url-rules.ts";

export { listEndpointDeliveries, listWebhookEndpoints } from "./list.ts";

export const MAX_ENDPOINTS_PER_ORGANIZATION = 10;

export interface EndpointDeps {
  db: Db;
  bus: EventBus;
  secretsKey: Buffer;
  allowInsecureTargets: InsecureTargets;
}

/** Registers an endpoint; the `whsec_` secret is returned once and stored sealed. */
export async function createWebhookEndpoint(
  deps: EndpointDeps,
  orgIdOrSlug: string,
  input: { url: string; events: WebhookEventType[] },
  actor = "admin",
): Promise<{ row: WebhookEndpointRow; secret: string }> {
  const bad = checkEndpointUrl(input.url, { allowInsecureTargets: deps.allowInsecureTargets });
  if (bad) throw validationFailed([bad]);
  const org = await findOrganization(deps.db, orgIdOrSlug);
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`endpoints:${org.id}`}))`);
    const [existing] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.organizationId, org.id));
    if ((existing?.n ?? 0) >= MAX_ENDPOINTS_PER_ORGANIZATION) {
      throw new ApiError(
        "limit_reached",
        `An organization may have at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints.`,
      );
    }
    const secret = newWebhookSecret();
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        id: newId(),
        organizationId: org.id,
        url: input.url,
        events: input.events,
        secretCiphertext: seal(secret, deps.secretsKey),
        secretHint: webhookSecretHint(secret),
      })
      .returning();
    await audit(tx, org.id, "webhook_endpoint.created", row!.id, actor);
    return { row: row!, secret };
  });
}

async function findEndpoint(db: Db, id: string): Promise<WebhookEndpointRow> {
  if (!isUuid(id)) throw new ApiError("not_found", "No such webhook endpoint.");
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  if (!row) throw new ApiError("not_found", "No such webhook endpoint.");
  return row;
}

export async function disableWebhookEndpoint(
  db: Db,
  id: string,
  actor = "admin",
): Promise<WebhookEndpointRow> {
  const endpoint = await findEndpoint(db, id);
  const [row] = await db
    .update(webhookEndpoints)
    .set({ status: "disabled", disabledReason: "by_client", updatedAt: new Date() })
    .where(eq(webhookEndpoints.id, endpoint.id))
    .returning();
  await audit(db, endpoint.organizationId, "webhook_endpoint.disabled", endpoint.id, actor);
  return row!;
}

/** Re-enables an endpoint, whatever disabled it, and clears its failure count. */
export async function enableWebhookEndpoint(
  db: Db,
  id: string,
  actor = "admin",
): Promise<WebhookEndpointRow> {
  const endpoint = await findEndpoint(db, id);
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      status: "enabled",
      disabledReason: null,
      consecutiveFailures: 0,
      updatedAt: new Date(),
    })
    .where(eq(webhookEndpoints.id, endpoint.id))
    .returning();
  await audit(db, endpoint.organizationId, "webhook_endpoint.enabled", endpoint.id, actor);
  return row!;
}

/**
 * Sends `webhook.test` once to this endpoint only; never recorded as a delivery. `eventId` lets
 * a caller wait for the `webhook.test_result` of this very test.
 */
export async function testWebhookEndpoint(
  deps: Pick<EndpointDeps, "db" | "bus">,
  id: string,
  eventId = newId(),
): Promise<WebhookEndpointRow> {
  const endpoint = await findEndpoint(deps.db, id);
  await deps.bus.publish({
    id: eventId,
    type: EVENT.webhookTest,
    created_at: new Date().toISOString(),
    data: { organization_id: endpoint.organizationId, endpoint_id: endpoint.id },
  });
  return endpoint;
}

/** Removes an endpoint for good, with its delivery log; its secret is gone with it. */
export async function deleteWebhookEndpoint(
  db: Db,
  id: string,
  actor = "admin",
): Promise<WebhookEndpointRow> {
  const endpoint = await findEndpoint(db, id);
  return db.transaction(async (tx) => {
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    await audit(tx, endpoint.organizationId, "webhook_endpoint.deleted", endpoint.id, actor);
    return endpoint;
  });
}

/**
 * The organization an endpoint belongs to, or null: the one lookup by endpoint id alone, so that
 * a caller can check the person's access to that organization before anything else.
 */
export async function organizationOfWebhookEndpoint(db: Db, id: string): Promise<string | null> {
  if (!isUuid(id)) return null;
  const [row] = await db
    .select({ organizationId: webhookEndpoints.organizationId })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, id));
  return row?.organizationId ?? null;
}

/** An endpoint's deliveries made since `since`, counted per hour (since the epoch) and status. */
export async function deliveriesPerHour(
  db: Db,
  organizationId: string,
  endpointId: string,
  since: Date,
): Promise<{ hour: number; status: WebhookDeliveryRow["status"]; count: number }[]> {
  const hour = sql<string>`floor(extract(epoch from ${webhookDeliveries.createdAt}) / 3600)`;
  const rows = await db
    .select({ hour, status: webhookDeliveries.status, count: count() })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.organizationId, organizationId),
        eq(webhookDeliveries.endpointId, endpointId),
        gte(webhookDeliveries.createdAt, since),
      ),
    )
    .groupBy(hour, webhookDeliveries.status);
  return rows.map((row) => ({ hour: Number(row.hour), status: row.status, count: row.count }));
}
