import {
  acceptedKeyEnvironment,
  type KeyEnvironment,
  type KeyScope,
  MAX_LIVE_KEYS_PER_ORGANIZATION,
  makeKey,
} from "@newsroom/shared/api-keys";
import type { Config } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { apiKeys } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid, newId } from "@newsroom/shared/ids";
import { and, count, eq, gt, isNull, sql } from "drizzle-orm";
import { audit } from "../audit.ts";
import { findOrganization } from "../resolve.ts";
import { apiKeyColumns, findApiKey } from "./list.ts";
import type { ApiKeyRow } from "./model.ts";

export { listApiKeys } from "./list.ts";

const DAY_MS = 86_400_000;

/**
 * Creates a key. The secret is returned here once and never again; only its SHA-256 is stored.
 * A deployment makes only the keys it accepts (`serviceEnv`: live keys in production, test keys
 * elsewhere), so no key exists where it cannot work. A 21st live (unrevoked, unexpired) key of an
 * organization is refused.
 */
export async function createApiKey(
  db: Db,
  orgIdOrSlug: string,
  input: {
    environment: KeyEnvironment;
    scopes: KeyScope[];
    lifetime_days: number;
    name?: string;
  },
  serviceEnv: Config["SERVICE_ENV"],
  actor = "admin",
): Promise<{ row: ApiKeyRow; secret: string }> {
  const accepted = acceptedKeyEnvironment(serviceEnv);
  if (input.environment !== accepted) {
    const message = `This deployment (${serviceEnv}) accepts only ${accepted} keys.`;
    throw new ApiError("validation_failed", message, {
      fields: [{ field: "environment", reason: "wrong_environment", message }],
    });
  }
  const org = await findOrganization(db, orgIdOrSlug);
  return db.transaction(async (tx) => {
    // Serialize key creation per organization so two requests cannot both take the 20th place.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`keys:${org.id}`}))`);
    const now = new Date();
    const [live] = await tx
      .select({ n: count() })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.organizationId, org.id),
          isNull(apiKeys.revokedAt),
          gt(apiKeys.expiresAt, now),
        ),
      );
    if ((live?.n ?? 0) >= MAX_LIVE_KEYS_PER_ORGANIZATION) {
      throw new ApiError(
        "limit_reached",
        `An organization may have at most ${MAX_LIVE_KEYS_PER_ORGANIZATION} keys in use, test and live keys alike (every key neither revoked nor expired counts). Revoke one first.`,
      );
    }
    const key = makeKey(input.environment);
    const [row] = await tx
      .insert(apiKeys)
      .values({
        id: newId(),
        organizationId: org.id,
        environment: input.environment,
        name: input.name ?? null,
        keyHash: key.hash,
        prefix: key.prefix,
        lastFour: key.lastFour,
        scopes: input.scopes,
        expiresAt: new Date(now.getTime() + input.lifetime_days * DAY_MS),
      })
      .returning(apiKeyColumns);
    await audit(tx, org.id, "api_key.created", row!.id, actor);
    return { row: { ...row!, lastUsedAt: null }, secret: key.secret };
  });
}

/** Revokes a key at once and for good. Revoking twice keeps the first revocation time. */
export async function revokeApiKey(
  db: Db,
  organizationId: string,
  keyId: string,
  actor = "admin",
): Promise<ApiKeyRow> {
  if (!isUuid(keyId)) throw new ApiError("not_found", "No such key.");
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.organizationId, organizationId), eq(apiKeys.id, keyId)));
    if (!current) throw new ApiError("not_found", "No such key.");
    if (!current.revokedAt) {
      await tx
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(and(eq(apiKeys.organizationId, organizationId), eq(apiKeys.id, keyId)));
      await audit(tx, organizationId, "api_key.revoked", keyId, actor);
    }
    return (await findApiKey(tx, organizationId, keyId))!;
  });
}

/**
 * The organization a key belongs to, or null: the one lookup by key id alone, so that a caller
 * can check the person's access to that organization before anything else.
 */
export async function organizationOfApiKey(db: Db, keyId: string): Promise<string | null> {
  if (!isUuid(keyId)) return null;
  const [row] = await db
    .select({ organizationId: apiKeys.organizationId })
    .from(apiKeys)
    .where(eq(apiKeys.id, keyId));
  return row?.organizationId ?? null;
}
