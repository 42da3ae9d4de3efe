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
  addresses: { houseOrg: string; newsroomHost: string },
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
