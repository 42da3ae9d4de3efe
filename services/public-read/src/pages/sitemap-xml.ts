import type { Queryable } from "@newsroom/shared/db/index";
import { xmlText } from "@newsroom/shared/feed-formats/rss";
import { iso } from "@newsroom/shared/records";
import { type Newsroom, SITEMAP_ENTRIES_MAX } from "../content/service.ts";
import { countPublished, publishedLocations } from "../content/store.ts";

/**
 * `sitemap.xml` in the sitemaps.org protocol (0.9): the newsroom's home page and one `<url>` per
 * published item. Past 50,000 addresses (the protocol's limit for one file) `sitemap.xml` is a
 * sitemap index naming `sitemap-1.xml`, `sitemap-2.xml`, ... beside it.
 */
const NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9";

export interface SitemapEntry {
  loc: string;
  /** W3C datetime, or absent. */
  lastmod?: string;
}

export interface SitemapDocument {
  xml: string;
  /** The newest change it shows (for Last-Modified), or null. */
  lastModified: Date | null;
}

export function renderUrlset(entries: SitemapEntry[]): string {
  const urls = entries.map(
    (entry) =>
      `<url><loc>${xmlText(entry.loc)}</loc>${entry.lastmod ? `<lastmod>${entry.lastmod}</lastmod>` : ""}</url>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${NAMESPACE}">\n${urls.join("\n")}\n</urlset>\n`;
}

export function renderSitemapIndex(files: SitemapEntry[]): string {
  const items = files.map(
    (file) =>
      `<sitemap><loc>${xmlText(file.loc)}</loc>${file.lastmod ? `<lastmod>${file.lastmod}</lastmod>` : ""}</sitemap>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${NAMESPACE}">\n${items.join("\n")}\n</sitemapindex>\n`;
}

/** The address of part `part` (1-based) of a split sitemap whose index is `sitemapUrl`. */
export function sitemapPartUrl(sitemapUrl: string, part: number): string {
  return sitemapUrl.replace(/\.xml$/, `-${part}.xml`);
}

/**
 * The sitemap at `sitemapUrl` (part null) or one part of it. `home` is the newsroom's home page,
 * always the first address, so that even a newsroom with nothing published has a valid file.
 * Null for a part that does not exist. `limit` is the protocol's, lowered only in tests.
 */
export async function sitemapDocument(
  db: Queryable,
  newsroom: Newsroom,
  place: { home: string; sitemapUrl: string },
  part: number | null,
  limit = SITEMAP_ENTRIES_MAX,
): Promise<SitemapDocument | null> {
  const orgId = newsroom.organizationId;
  const published = orgId === null ? 0 : await countPublished(db, orgId);
  const total = published + 1;
  const parts = Math.ceil(total / limit);
  if (part === null && parts > 1) {
    const newest = orgId === null ? [] : await publishedLocations(db, orgId, 1);
    const lastModified = newest[0] ? changedAt(newest[0]) : null;
    const files = Array.from({ length: parts }, (_, index) => ({
      loc: sitemapPartUrl(place.sitemapUrl, index + 1),
      ...(lastModified ? { lastmod: iso(lastModified) } : {}),
    }));
    return { xml: renderSitemapIndex(files), lastModified };
  }
  const shown = part ?? 1;
  if (shown < 1 || shown > parts || (part !== null && parts === 1)) return null;
  // Address n (0-based) of the whole list is the home page for n = 0, else item n - 1.
  const first = (shown - 1) * limit;
  const withHome = first === 0;
  const rows =
    orgId === null
      ? []
      : await publishedLocations(db, orgId, withHome ? limit - 1 : limit, withHome ? 0 : first - 1);
  const changes = rows.map(changedAt);
  const lastModified = changes.reduce<Date | null>((a, b) => (a && a > b ? a : b), null);
  const entries: SitemapEntry[] = rows.map((row, index) => ({
    loc: `${newsroom.itemBase}/${encodeURIComponent(row.slug)}`,
    lastmod: iso(changes[index]!),
  }));
  if (withHome) {
    entries.unshift({ loc: place.home, ...(lastModified ? { lastmod: iso(lastModified) } : {}) });
  }
  return { xml: renderUrlset(entries), lastModified };
}

function changedAt(row: { publishedAt: Date | null; updatedAt: Date }): Date {
  return row.publishedAt && row.publishedAt > row.updatedAt ? row.publishedAt : row.updatedAt;
}
