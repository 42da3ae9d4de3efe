import { iso } from "@newsroom/shared/records";
import { t } from "elysia";
import type { OrganizationRow } from "../resolve.ts";

export const OrgSlug = t.String({ pattern: "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$" });

export const OrganizationCreateIn = t.Object({
  slug: OrgSlug,
  name: t.String({ minLength: 1, maxLength: 200 }),
  newsroom_running: t.Optional(t.Boolean()),
  sandbox: t.Optional(t.Boolean()),
});

export const MAX_NEWSLETTER_ORIGINS = 20;

/** Origins (scheme, host, optional port) whose pages may post the newsletter form. */
const NewsletterOrigins = t.Array(t.String({ pattern: "^https?://[^/\\s]+$", maxLength: 300 }), {
  maxItems: MAX_NEWSLETTER_ORIGINS,
});

export const OrganizationUpdateIn = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  newsroom_running: t.Optional(t.Boolean()),
  /** A sandbox organization may be filled with synthetic data (never in production). */
  sandbox: t.Optional(t.Boolean()),
  newsletter_enabled: t.Optional(t.Boolean()),
  /** Replaces the list. */
  newsletter_origins: t.Optional(NewsletterOrigins),
  /** Adds these origins to the list. */
  add_newsletter_origins: t.Optional(NewsletterOrigins),
  /** Removes these origins from the list. */
  remove_newsletter_origins: t.Optional(NewsletterOrigins),
  /** The owner's switch: approvals through the API (OAuth) are answered. */
  api_approvals_enabled: t.Optional(t.Boolean()),
});

export function organizationOut(row: OrganizationRow) {
  return {
    object: "organization" as const,
    id: row.id,
    slug: row.slug,
    name: row.name,
    newsroom_running: row.newsroomRunning,
    sandbox: row.sandbox,
    newsletter_enabled: row.newsletterEnabled,
    newsletter_origins: row.newsletterOrigins,
    api_approvals_enabled: row.apiApprovalsEnabled,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
