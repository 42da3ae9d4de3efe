import type { Queryable } from "@newsroom/shared/db/index";
import { canonicalUrl } from "@newsroom/shared/site-address";
import type { HostnameRow } from "./model.ts";
import { hostnamesOfOrganization, sitesOfOrganization } from "./store.ts";

/** The first activated hostname is the canonical address, as public reads serve it. */
export function activeHostname(names: HostnameRow[]): string | null {
  const active = names
    .filter((name) => name.status === "active")
    .sort(
      (a, b) =>
        (a.activatedAt?.getTime() ?? 0) - (b.activatedAt?.getTime() ?? 0) ||
        a.hostname.localeCompare(b.hostname),
    );
  return active[0]?.hostname ?? null;
}

/** Where the organization's newsrooms are: HOUSE_ORG and NEWSROOM_HOST. */
export interface PublicAddresses {
  houseOrg: string;
  newsroomHost: string;
}

export interface PublicPage {
  /** Where the page is: "the newsroom" or a hosted site's name. */
  where: string;
  url: string;
}

/**
 * Where readers find a published story of the organization, with the addresses public reads
 * give: the house newsroom's `/newsroom/{slug}` for HOUSE_ORG, and `{site address}/{slug}` on
 * each of its enabled hosted sites. A site with an active hostname is also served at its hosted
 * address `{NEWSROOM_HOST}/{site}`, listed too: it works before the hostname's DNS does.
 */
export async function storyPublicPages(
  db: Queryable,
  addresses: PublicAddresses,
  organization: { id: string; slug: string },
  storySlug: string,
): Promise<PublicPage[]> {
  const [sites, names] = await Promise.all([
    sitesOfOrganization(db, organization.id),
    hostnamesOfOrganization(db, organization.id),
  ]);
  const item = encodeURIComponent(storySlug);
  const pages: PublicPage[] = sites
    .filter((site) => site.enabled)
    .flatMap((site) => {
      const hostname = activeHostname(names.filter((name) => name.siteId === site.id));
      const hosted = `${canonicalUrl(addresses.newsroomHost, site.slug, null)}/${item}`;
      if (!hostname) return [{ where: site.name, url: hosted }];
      return [
        {
          where: site.name,
          url: `${canonicalUrl(addresses.newsroomHost, site.slug, hostname)}/${item}`,
        },
        { where: `${site.name} (hosted address)`, url: hosted },
      ];
    });
  if (organization.slug === addresses.houseOrg) {
    const origin = new URL(addresses.newsroomHost).origin;
    pages.unshift({
      where: "the newsroom",
      url: `${origin}/newsroom/${item}`,
    });
  }
  return pages;
}

/**
 * The home of the newsroom an embargoed preview link lives on: the first enabled hosted site at
 * its canonical address (public reads serve the link there and under `{NEWSROOM_HOST}/{site}`
 * alike), else the house newsroom, which shows it under the organization's own name.
 */
export async function previewHome(
  db: Queryable,
  addresses: PublicAddresses,
  organization: { id: string; slug: string },
): Promise<string> {
  const houseHome = `${new URL(addresses.newsroomHost).origin}/newsroom`;
  if (organization.slug === addresses.houseOrg) return houseHome;
  const [sites, names] = await Promise.all([
    sitesOfOrganization(db, organization.id),
    hostnamesOfOrganization(db, organization.id),
  ]);
  const site = sites.find((candidate) => candidate.enabled);
  if (!site) return houseHome;
  const hostname = activeHostname(names.filter((name) => name.siteId === site.id));
  return canonicalUrl(addresses.newsroomHost, site.slug, hostname);
}

/** A newsroom a story can be previewed on: a hosted site by slug, or (no slug) the default one. */
export interface PreviewPlace {
  site: string | null;
  name: string;
}

/**
 * The organization's newsrooms, for previews: the house newsroom for HOUSE_ORG, and each enabled
 * hosted site; an organization with neither previews on a page under its own name.
 */
export async function previewPlaces(
  db: Queryable,
  houseOrg: string,
  organization: { id: string; slug: string; name: string },
): Promise<PreviewPlace[]> {
  const sites = await sitesOfOrganization(db, organization.id);
  const places: PreviewPlace[] = sites
    .filter((site) => site.enabled)
    .map((site) => ({ site: site.slug, name: site.name }));
  if (organization.slug === houseOrg) places.unshift({ site: null, name: "the newsroom" });
  return places.length > 0 ? places : [{ site: null, name: organization.name }];
}

/** The workspace's preview page of a version on one place. */
export function previewPath(storyId: string, version: number, place: PreviewPlace): string {
  const query = place.site ? `?site=${encodeURIComponent(place.site)}` : "";
  return `/app/stories/${storyId}/versions/${version}/preview${query}`;
}
