import type { Queryable } from "@newsroom/shared/db/index";
import { hostnames, sites } from "@newsroom/shared/db/schema";
import { asc, eq } from "drizzle-orm";
import type { SiteRow } from "../resolve.ts";
import type { HostnameRow } from "./model.ts";

/** The organization's sites, by slug. */
export function sitesOfOrganization(db: Queryable, organizationId: string): Promise<SiteRow[]> {
  return db
    .select()
    .from(sites)
    .where(eq(sites.organizationId, organizationId))
    .orderBy(asc(sites.slug));
}

/** The hostnames of the organization's sites, by hostname. */
export function hostnamesOfOrganization(
  db: Queryable,
  organizationId: string,
): Promise<HostnameRow[]> {
  return db
    .select()
    .from(hostnames)
    .where(eq(hostnames.organizationId, organizationId))
    .orderBy(asc(hostnames.hostname));
}
