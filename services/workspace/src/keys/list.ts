import type { Queryable } from "@newsroom/shared/db/index";
import { apiKeys, apiKeyUsage } from "@newsroom/shared/db/schema";
import { and, desc, eq, type SQL } from "drizzle-orm";
import { findOrganization } from "../resolve.ts";
import type { ApiKeyRow } from "./model.ts";

/** The key's own columns, as the workspace writes them (never the retired `last_used_at`). */
export const apiKeyColumns = {
  id: apiKeys.id,
  organizationId: apiKeys.organizationId,
  environment: apiKeys.environment,
  name: apiKeys.name,
  keyHash: apiKeys.keyHash,
  prefix: apiKeys.prefix,
  lastFour: apiKeys.lastFour,
  scopes: apiKeys.scopes,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
  createdAt: apiKeys.createdAt,
};

/** An organization's keys with their last use, which client-api records in `api_key_usage`. */
function keysOf(db: Queryable, organizationId: string, which?: SQL) {
  return db
    .select({ ...apiKeyColumns, lastUsedAt: apiKeyUsage.lastUsedAt })
    .from(apiKeys)
    .leftJoin(
      apiKeyUsage,
      and(
        eq(apiKeyUsage.organizationId, apiKeys.organizationId),
        eq(apiKeyUsage.keyId, apiKeys.id),
      ),
    )
    .where(and(eq(apiKeys.organizationId, organizationId), which));
}

/** The organization's keys, newest first: records only, never a secret or a hash. */
export async function listApiKeys(db: Queryable, orgIdOrSlug: string): Promise<ApiKeyRow[]> {
  const org = await findOrganization(db, orgIdOrSlug);
  return keysOf(db, org.id).orderBy(desc(apiKeys.createdAt)).limit(1000);
}

/** One of the organization's keys with its last use, or null. */
export async function findApiKey(
  db: Queryable,
  organizationId: string,
  keyId: string,
): Promise<ApiKeyRow | null> {
  const [row] = await keysOf(db, organizationId, eq(apiKeys.id, keyId));
  return row ?? null;
}
