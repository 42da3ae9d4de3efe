import type { Queryable } from "@newsroom/shared/db/index";
import { organizations, sites } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import { eq } from "drizzle-orm";

export type OrganizationRow = typeof organizations.$inferSelect;
export type SiteRow = typeof sites.$inferSelect;

/** Path identifiers accept the id or the slug. */
export async function findOrganization(db: Queryable, idOrSlug: string): Promise<OrganizationRow> {
  const [row] = await db
    .select()
    .from(organizations)
    .where(isUuid(idOrSlug) ? eq(organizations.id, idOrSlug) : eq(organizations.slug, idOrSlug));
  if (!row) throw new ApiError("not_found", "No such organization.");
  return row;
}

/**
 * Across organizations (labelled: an internal API path names only the site): a site by its id or
 * slug, whose organization the caller then writes in.
 */
export async function findSite(db: Queryable, idOrSlug: string): Promise<SiteRow> {
  const [row] = await db
    .select()
    .from(sites)
    .where(isUuid(idOrSlug) ? eq(sites.id, idOrSlug) : eq(sites.slug, idOrSlug));
  if (!row) throw new ApiError("not_found", "No such site.");
  return row;
}

/** One of the organization's sites by its id or slug; another organization's is not found. */
export async function findSiteInOrganization(
  db: Queryable,
  organizationId: string,
  idOrSlug: string,
): Promise<SiteRow> {
  const site = await findSite(db, idOrSlug);
  if (site.organizationId !== organizationId) throw new ApiError("not_found", "No such site.");
  return site;
}
