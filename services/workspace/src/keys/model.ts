import { KEY_LIFETIMES_DAYS, KEY_SCOPES } from "@newsroom/shared/api-keys";
import type { apiKeys } from "@newsroom/shared/db/schema";
import { iso, NAME_MAX_LENGTH } from "@newsroom/shared/records";
import { t } from "elysia";

/**
 * A key as the workspace shows it: its row, and when client-api last recorded a use of it
 * (`api_key_usage`), null before the first.
 */
export type ApiKeyRow = Omit<typeof apiKeys.$inferSelect, "retiredLastUsedAt"> & {
  lastUsedAt: Date | null;
};

export const KeyCreateIn = t.Object({
  environment: t.Union([t.Literal("live"), t.Literal("test")]),
  scopes: t.Array(t.Union(KEY_SCOPES.map((scope) => t.Literal(scope))), {
    minItems: 1,
    maxItems: KEY_SCOPES.length,
    uniqueItems: true,
  }),
  lifetime_days: t.Union(KEY_LIFETIMES_DAYS.map((days) => t.Literal(days))),
  name: t.Optional(t.String({ minLength: 1, maxLength: NAME_MAX_LENGTH })),
});

/** The key record: never the key itself, nor its hash. */
export function apiKeyOut(row: ApiKeyRow) {
  return {
    object: "api_key" as const,
    id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    environment: row.environment,
    prefix: row.prefix,
    last_four: row.lastFour,
    scopes: row.scopes,
    expires_at: iso(row.expiresAt),
    revoked_at: iso(row.revokedAt),
    last_used_at: iso(row.lastUsedAt),
    created_at: iso(row.createdAt),
  };
}
