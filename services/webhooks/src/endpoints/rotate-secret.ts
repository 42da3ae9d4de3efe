import type { Db } from "@newsroom/shared/db/index";
import { webhookEndpoints } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import { newWebhookSecret, seal } from "@newsroom/shared/secret-box";
import { webhookSecretHint } from "@newsroom/shared/webhook-records";
import { and, eq, sql } from "drizzle-orm";
import type { WebhookEndpointRow } from "./model.ts";

/** How long the replaced secret still signs requests after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Gives the endpoint a new `whsec_` secret, returned once. The replaced secret is kept sealed
 * with an expiry 24 hours on: until then every request carries both signatures, so a receiver
 * can switch at its own pace. Rotating again within the overlap drops the oldest secret.
 */
export async function rotateWebhookEndpointSecret(
  deps: { db: Db; secretsKey: Buffer },
  organizationId: string,
  id: string,
  now: Date = new Date(),
): Promise<{ row: WebhookEndpointRow; secret: string }> {
  if (!isUuid(id)) throw new ApiError("not_found", "No such webhook endpoint.");
  const secret = newWebhookSecret();
  const [row] = await deps.db
    .update(webhookEndpoints)
    .set({
      previousSecretCiphertext: sql`${webhookEndpoints.secretCiphertext}`,
      previousSecretExpiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS),
      secretCiphertext: seal(secret, deps.secretsKey),
      secretHint: webhookSecretHint(secret),
      updatedAt: now,
    })
    .where(and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.id, id)))
    .returning();
  if (!row) throw new ApiError("not_found", "No such webhook endpoint.");
  return { row, secret };
}
