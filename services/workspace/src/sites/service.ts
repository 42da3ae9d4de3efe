import type { Queryable } from "@newsroom/shared/db/index";
import { hostnames, sites } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { newId } from "@newsroom/shared/ids";
import { and, eq } from "drizzle-orm";
import { findOrganization, findSiteInOrganization, type SiteRow } from "../resolve.ts";
import { DEFAULT_ACCENT, type HostnameRow } from "./model.ts";

export async function createSite(
  db: Queryable,
  orgIdOrSlug: string,
  input: {
    site: string;
    name: string;
    publisher: string;
    accent?: string;
    enabled?: boolean;
    live?: boolean;
  },
): Promise<SiteRow> {
  const org = await findOrganization(db, orgIdOrSlug);
  const [taken] = await db.select({ id: sites.id }).from(sites).where(eq(sites.slug, input.site));
  if (taken) {
    throw new ApiError("conflict", "This site slug is taken.", {
      fields: [{ field: "site", reason: "taken" }],
    });
  }
  const [row] = await db
    .insert(sites)
    .values({
      id: newId(),
      organizationId: org.id,
      slug: input.site,
      name: input.name,
      publisher: input.publisher,
      accent: input.accent ?? DEFAULT_ACCENT,
      enabled: input.enabled ?? true,
      live: input.live ?? false,
    })
    .returning();
  return row!;
}

export async function addHostname(
  db: Queryable,
  organizationId: string,
  siteIdOrSlug: string,
  hostname: string,
): Promise<HostnameRow> {
  const site = await findSiteInOrganization(db, organizationId, siteIdOrSlug);
  const name = hostname.toLowerCase();
  const [taken] = await db
    .select({ id: hostnames.id })
    .from(hostnames)
    .where(eq(hostnames.hostname, name));
  if (taken) {
    throw new ApiError("conflict", "This hostname is registered already.", {
      fields: [{ field: "hostname", reason: "taken" }],
    });
  }
  const [row] = await db
    .insert(hostnames)
    .values({ id: newId(), organizationId: site.organizationId, siteId: site.id, hostname: name })
    .returning();
  return row!;
}

/** Marks a hostname's certificate as confirmed: from now on it resolves publicly. */
export async function activateHostname(
  db: Queryable,
  organizationId: string,
  siteIdOrSlug: string,
  hostname: string,
): Promise<HostnameRow> {
  const site = await findSiteInOrganization(db, organizationId, siteIdOrSlug);
  const [row] = await db
    .update(hostnames)
    .set({ status: "active", activatedAt: new Date() })
    .where(and(eq(hostnames.siteId, site.id), eq(hostnames.hostname, hostname.toLowerCase())))
    .returning();
  if (!row) throw new ApiError("not_found", "No such hostname on this site.");
  return row;
}
