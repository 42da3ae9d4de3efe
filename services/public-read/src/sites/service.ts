import type { Queryable } from "@newsroom/shared/db/index";
import { canonicalUrl } from "@newsroom/shared/site-address";
import type { SiteOut } from "../content/model.ts";
import type { Newsroom } from "../content/service.ts";
import { clearedAsset } from "../content/store.ts";
import {
  activeHostnameOfSite,
  type EnabledSiteRow,
  enabledSiteByActiveHostname,
  enabledSiteBySlug,
} from "./store.ts";

/** A hosted newsroom ready to serve: its record and where its content lives. */
export interface HostedSite {
  organizationId: string;
  record: SiteOut;
  newsroom: Newsroom;
}

async function hosted(
  db: Queryable,
  newsroomHost: string,
  row: EnabledSiteRow,
): Promise<HostedSite> {
  const [hostname, logo] = await Promise.all([
    activeHostnameOfSite(db, row.organizationId, row.id),
    row.logoAssetId ? clearedAsset(db, row.organizationId, row.logoAssetId) : null,
  ]);
  const canonical = canonicalUrl(newsroomHost, row.slug, hostname);
  return {
    organizationId: row.organizationId,
    record: {
      object: "site",
      site: row.slug,
      name: row.name,
      publisher: row.publisher,
      accent: row.accent,
      logo,
      live: row.live,
      canonical_url: canonical,
      hostname,
    },
    newsroom: {
      // An enabled site of an organization whose newsroom is not running shows no content.
      organizationId: row.newsroomRunning ? row.organizationId : null,
      ownerId: row.organizationId,
      itemBase: canonical,
      topicBase: `${canonical}/topics`,
    },
  };
}

/** The enabled site with this slug, or null. */
export async function siteBySlug(
  db: Queryable,
  newsroomHost: string,
  slug: string,
): Promise<HostedSite | null> {
  const row = await enabledSiteBySlug(db, slug);
  return row ? hosted(db, newsroomHost, row) : null;
}

/** The enabled site served on this active hostname (any case), or null. */
export async function siteByHostname(
  db: Queryable,
  newsroomHost: string,
  hostname: string,
): Promise<HostedSite | null> {
  const row = await enabledSiteByActiveHostname(db, hostname.toLowerCase());
  return row ? hosted(db, newsroomHost, row) : null;
}
