import { Elysia } from "elysia";
import { siteTags } from "../caching/cache-tags.ts";
import { found, notFoundOutcome, type ReadOutcome } from "../caching/reader.ts";
import { decodeCursor } from "../content/cursor.ts";
import {
  ContentItemOut,
  NewsroomIndexOut,
  SitemapOut,
  SiteOut,
  TopicPageOut,
} from "../content/model.ts";
import {
  CursorQuery,
  HostnameParams,
  IndexQuery,
  SiteParams,
  SiteSlugParams,
} from "../content/params.ts";
import { contentItem, newsroomIndex, sitemap, topicPage } from "../content/service.ts";
import { publicContent } from "../contract.ts";
import type { ReadDeps } from "../deps.ts";
import { type HostedSite, siteByHostname, siteBySlug } from "./service.ts";

/**
 * Hosted newsrooms by site slug and by client hostname. Only enabled sites; content only while
 * the organization's newsroom runs. Purge keys: `site:<site>` on every answer of the site, plus
 * `site:<site>:newsroom-index`, `content:<id>`, `site:<site>:topic:<slug>`, `site:<site>:sitemap`
 * and `host:<hostname>`.
 */
export function sitesRoutes(deps: ReadDeps) {
  const { db, reader } = deps;
  const host = deps.config.NEWSROOM_HOST;

  /** Runs `read` for an enabled site, or answers 404 tagged with the site. */
  const withSite = async (
    slug: string,
    read: (site: HostedSite) => Promise<ReadOutcome>,
  ): Promise<ReadOutcome> => {
    const site = await siteBySlug(db, host, slug);
    if (!site)
      return notFoundOutcome("No enabled newsroom with this site.", siteTags.site(slug), null);
    return read(site);
  };

  return new Elysia({ name: "public-read:sites" })
    .get(
      "/v1/public/sites/:site",
      ({ request, params }) =>
        reader.serve(request, () =>
          withSite(params.site, async (site) =>
            found(site.record, siteTags.site(params.site), site.organizationId),
          ),
        ),
      {
        params: SiteParams,
        detail: publicContent({
          operationId: "getSite",
          summary: "Hosted newsroom record",
          description:
            "Name, publisher, accent, cleared logo, whether it is live (indexable) and its canonical address.",
          tags: ["Hosted newsrooms"],
          schema: SiteOut,
          parameters: true,
          notFound: "No enabled newsroom with this site (`not_found`, cached 60 s).",
        }),
      },
    )
    .get(
      "/v1/public/sites/:site/newsroom",
      ({ request, params, query }) => {
        const after = query.cursor ? decodeCursor(query.cursor) : undefined;
        return reader.serve(request, () =>
          withSite(params.site, async (site) => {
            const body = await newsroomIndex(db, site.newsroom, {
              type: query.type,
              topic: query.topic,
              after,
            });
            return found(body, siteTags.index(params.site, query.topic), site.organizationId);
          }),
        );
      },
      {
        params: SiteParams,
        query: IndexQuery,
        detail: publicContent({
          operationId: "getSiteIndex",
          summary: "A hosted newsroom's published stories",
          description: "Same shape and paging as the newsroom index.",
          tags: ["Hosted newsrooms"],
          schema: NewsroomIndexOut,
          parameters: true,
          notFound: "No enabled newsroom with this site (`not_found`).",
        }),
      },
    )
    .get(
      "/v1/public/sites/:site/newsroom/:slug",
      ({ request, params }) =>
        reader.serve(request, () =>
          withSite(params.site, async (site) => {
            const item = await contentItem(db, site.newsroom, params.slug);
            if (!item) {
              return notFoundOutcome(
                "No published item with this slug.",
                siteTags.missingItem(params.site),
                site.organizationId,
              );
            }
            const tags = siteTags.item(
              params.site,
              item.id,
              item.related.map((r) => r.id),
            );
            return found(item, tags, site.organizationId);
          }),
        ),
      {
        params: SiteSlugParams,
        detail: publicContent({
          operationId: "getSiteItem",
          summary: "One published story of the site",
          description:
            "The same record as the newsroom's item, its addresses on the site's canonical address.",
          tags: ["Hosted newsrooms"],
          schema: ContentItemOut,
          parameters: true,
          notFound: "No such site or no published item (`not_found`).",
        }),
      },
    )
    .get(
      "/v1/public/sites/:site/topics/:slug",
      ({ request, params, query }) => {
        const after = query.cursor ? decodeCursor(query.cursor) : undefined;
        return reader.serve(request, () =>
          withSite(params.site, async (site) => {
            const page = await topicPage(db, site.newsroom, params.slug, after);
            const tags = siteTags.topic(params.site, params.slug);
            if (!page) return notFoundOutcome("No such topic.", tags, site.organizationId);
            return found(page, tags, site.organizationId);
          }),
        );
      },
      {
        params: SiteSlugParams,
        query: CursorQuery,
        detail: publicContent({
          operationId: "getSiteTopic",
          summary: "Topic of the site",
          description: "The site's published stories of one topic, newest first, 24 a page.",
          tags: ["Hosted newsrooms"],
          schema: TopicPageOut,
          parameters: true,
          notFound: "No such site or topic (`not_found`).",
        }),
      },
    )
    .get(
      "/v1/public/sites/:site/sitemap",
      ({ request, params }) =>
        reader.serve(request, () =>
          withSite(params.site, async (site) =>
            found(
              await sitemap(db, site.newsroom),
              siteTags.sitemap(params.site),
              site.organizationId,
            ),
          ),
        ),
      {
        params: SiteParams,
        detail: publicContent({
          operationId: "getSiteSitemap",
          summary: "Sitemap entries on the site's canonical address",
          description:
            "The address and last change of every published story of the site, on its canonical address (the client hostname once active).",
          tags: ["Hosted newsrooms"],
          schema: SitemapOut,
          parameters: true,
          notFound: "No enabled newsroom with this site (`not_found`).",
        }),
      },
    )
    .get(
      "/v1/public/hosts/:hostname",
      ({ request, params }) => {
        const hostname = params.hostname.toLowerCase();
        return reader.serve(request, async () => {
          const site = await siteByHostname(db, host, hostname);
          if (!site) {
            return notFoundOutcome(
              "No enabled newsroom on this hostname.",
              siteTags.host(null, hostname),
              null,
            );
          }
          return found(site.record, siteTags.host(site.record.site, hostname), site.organizationId);
        });
      },
      {
        params: HostnameParams,
        detail: publicContent({
          operationId: "getSiteByHostname",
          summary: "Hosted newsroom served on a client hostname",
          description:
            "Resolves only a hostname whose certificate is confirmed active, of an enabled newsroom; case-insensitive.",
          tags: ["Hosted newsrooms"],
          schema: SiteOut,
          parameters: true,
          notFound: "A pending hostname, or one of a newsroom that is not enabled (`not_found`).",
        }),
      },
    );
}
