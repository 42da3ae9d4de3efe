import type { hostnames } from "@newsroom/shared/db/schema";
import { iso } from "@newsroom/shared/records";
import { t } from "elysia";
import type { SiteRow } from "../resolve.ts";

export type HostnameRow = typeof hostnames.$inferSelect;

/** The accent colour of a site created without one. */
export const DEFAULT_ACCENT = "#1a73e8";

export const SiteSlug = t.String({
  maxLength: 48,
  pattern: "^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$",
});

export const Hostname = t.String({
  maxLength: 253,
  pattern: "^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$",
});

export const SiteCreateIn = t.Object({
  site: SiteSlug,
  name: t.String({ minLength: 1, maxLength: 200 }),
  publisher: t.String({ minLength: 1, maxLength: 200 }),
  accent: t.Optional(t.String({ pattern: "^#[0-9a-fA-F]{6}$" })),
  enabled: t.Optional(t.Boolean()),
  live: t.Optional(t.Boolean()),
});

export const HostnameIn = t.Object({ hostname: Hostname });

export function siteOut(row: SiteRow) {
  return {
    object: "site" as const,
    id: row.id,
    organization_id: row.organizationId,
    site: row.slug,
    name: row.name,
    publisher: row.publisher,
    accent: row.accent,
    enabled: row.enabled,
    live: row.live,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export function hostnameOut(row: HostnameRow) {
  return {
    object: "hostname" as const,
    id: row.id,
    site_id: row.siteId,
    hostname: row.hostname,
    status: row.status,
    activated_at: iso(row.activatedAt),
    created_at: iso(row.createdAt),
  };
}
