import type { InsecureTargets } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { webhookEndpoints } from "@newsroom/shared/db/schema";
import { ApiError, validationFailed } from "@newsroom/shared/errors";
import { newId } from "@newsroom/shared/ids";
import { newWebhookSecret, seal } from "@newsroom/shared/secret-box";
import {
  type EndpointCreateIn,
  type EndpointUpdateIn,
  MAX_ENDPOINTS_PER_ORGANIZATION,
} from "@newsroom/shared/webhook-endpoint-commands";
import { webhookSecretHint } from "@newsroom/shared/webhook-records";
import { and, count, eq, sql } from "drizzle-orm";
import { reorderPendingDeliveries } from "../delivery/store.ts";
import { checkEndpointAuth, sealEndpointAuth } from "./auth.ts";
import { findWebhookEndpoint } from "./list.ts";
import type { WebhookEndpointRow } from "./model.ts";
import { checkEndpointUrl } from "./url-rules.ts";

export interface EndpointDeps {
  db: Db;
  secretsKey: Buffer;
  allowInsecureTargets: InsecureTargets;
}

/** Registers an endpoint; the `whsec_` secret is returned once and stored sealed. */
export async function createWebhookEndpoint(
  deps: EndpointDeps,
  organizationId: string,
  input: EndpointCreateIn,
): Promise<{ row: WebhookEndpointRow; secret: string }> {
  const rules = { allowInsecureTargets: deps.allowInsecureTargets };
  const bad = [
    checkEndpointUrl(input.url, rules),
    ...(input.auth ? checkEndpointAuth(input.auth, rules) : []),
  ].filter((error) => error !== null);
  if (bad.length > 0) throw validationFailed(bad);
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`endpoints:${organizationId}`}))`);
    const [existing] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.organizationId, organizationId));
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
        organizationId,
        name: input.name ?? null,
        url: input.url,
        events: input.events,
        topics: input.topics ?? null,
        rateLimitPerSecond: input.rate_limit_per_second ?? null,
        ordering: input.ordering ?? "none",
        ...sealEndpointAuth(input.auth, deps.secretsKey),
        secretCiphertext: seal(secret, deps.secretsKey),
        secretHint: webhookSecretHint(secret),
      })
      .returning();
    return { row: row!, secret };
  });
}

/** Stops deliveries to an endpoint at its owner's request. */
export async function disableWebhookEndpoint(
  db: Db,
  organizationId: string,
  id: string,
): Promise<WebhookEndpointRow> {
  return updateEndpoint(db, organizationId, id, {
    status: "disabled",
    disabledReason: "by_client",
  });
}

/** Re-enables an endpoint, whatever disabled it, and clears its failure count. */
export async function enableWebhookEndpoint(
  db: Db,
  organizationId: string,
  id: string,
): Promise<WebhookEndpointRow> {
  return updateEndpoint(db, organizationId, id, {
    status: "enabled",
    disabledReason: null,
    consecutiveFailures: 0,
    // A new run: its failing alerts may be raised again.
    failedAttemptsInARow: 0,
    failingSince: null,
    failureAlertPercent: 0,
  });
}

/**
 * Changes an endpoint's delivery options (those given; 404 for another organization's). A change
 * of ordering applies to its pending deliveries too, in the same transaction.
 */
export async function updateWebhookEndpointOptions(
  db: Db,
  organizationId: string,
  id: string,
  input: EndpointUpdateIn,
): Promise<WebhookEndpointRow> {
  const endpoint = await findWebhookEndpoint(db, organizationId, id);
  return db.transaction(async (tx) => {
    // The deliveries first, then the endpoint's row: the order a recording of an attempt locks
    // them in (its delivery, then its endpoint), so the two never wait for each other in a
    // circle (the other way round, one of them was aborted as a deadlock).
    if (input.ordering !== undefined && input.ordering !== endpoint.ordering) {
      await reorderPendingDeliveries(tx, organizationId, endpoint.id, input.ordering);
    }
    const [row] = await tx
      .update(webhookEndpoints)
      .set({
        ...(input.rate_limit_per_second !== undefined
          ? { rateLimitPerSecond: input.rate_limit_per_second }
          : {}),
        ...(input.ordering !== undefined ? { ordering: input.ordering } : {}),
        updatedAt: new Date(),
      })
      .where(
        and(
          eq(webhookEndpoints.organizationId, organizationId),
          eq(webhookEndpoints.id, endpoint.id),
        ),
      )
      .returning();
    return row!;
  });
}

/** Changes one of the organization's endpoints (404 for any other), stamping `updatedAt`. */
async function updateEndpoint(
  db: Db,
  organizationId: string,
  id: string,
  values: Partial<typeof webhookEndpoints.$inferInsert>,
): Promise<WebhookEndpointRow> {
  const endpoint = await findWebhookEndpoint(db, organizationId, id);
  const [row] = await db
    .update(webhookEndpoints)
    .set({ ...values, updatedAt: new Date() })
    .where(
      and(
        eq(webhookEndpoints.organizationId, organizationId),
        eq(webhookEndpoints.id, endpoint.id),
      ),
    )
    .returning();
  return row!;
}

/** Removes an endpoint for good, with its delivery log; its secret is gone with it. */
export async function deleteWebhookEndpoint(
  db: Db,
  organizationId: string,
  id: string,
): Promise<WebhookEndpointRow> {
  const endpoint = await findWebhookEndpoint(db, organizationId, id);
  await db
    .delete(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.organizationId, organizationId),
        eq(webhookEndpoints.id, endpoint.id),
      ),
    );
  return endpoint;
}
