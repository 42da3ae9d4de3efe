import { pathOf } from "@newsroom/shared/http/urls";
import {
  hostedPagesPrefix,
  hostnameOf,
  isClientHost,
  publicHostOf,
} from "@newsroom/shared/page-host";
import { houseTags, siteTags } from "../caching/cache-tags.ts";
import { found, notFoundOutcome, type ReadOutcome } from "../caching/reader.ts";
import { TextDocument } from "../caching/text-document.ts";
import { SITE_PATTERN } from "../content/params.ts";
import type { Newsroom } from "../content/service.ts";
import type { ReadDeps } from "../deps.ts";
import { houseNewsroom } from "../newsroom/service.ts";
import { siteByHostname, siteBySlug } from "../sites/service.ts";
import { enabledSiteSlugs, serviceRobots, siteRobots } from "./robots.ts";
import { siteFeed } from "./site-feeds.ts";
import { sitemapDocument } from "./sitemap-xml.ts";
import { organizationOfPages } from "./store.ts";

/**
 * The documents beside the newsroom pages, for search engines and feed readers: `robots.txt`
 * and `sitemap.xml` at the root of each host (the service's own: the house newsroom, and every
 * hosted site's path; a client's hostname: its site), and `feed.xml` (RSS) and `feed.json`
 * (JSON Feed) at each newsroom's home (`/newsroom`, `{prefix}/{site}`, a client hostname's `/`).
 * Cached and purged like the JSON routes: a sitemap carries the sitemap tags and a feed the index
 * tags, both in `storyPurgeTags`, so a publish or unpublish drops them.
 */
type Document =
  | { kind: "robots" }
  | { kind: "sitemap"; part: number | null }
  | { kind: "feed"; format: "rss" | "json" };

const SITE = new RegExp(SITE_PATTERN);
const SITEMAP_PART = /^sitemap-([1-9][0-9]{0,5})\.xml$/;
const DOCUMENT_SUFFIX = /\.(?:xml|json|txt)$/;

/** The document a file name at a newsroom's root names, or null. */
function documentNamed(name: string, atHostRoot: boolean, atHome: boolean): Document | null {
  if (atHostRoot && name === "robots.txt") return { kind: "robots" };
  if (atHostRoot && name === "sitemap.xml") return { kind: "sitemap", part: null };
  const part = atHostRoot ? SITEMAP_PART.exec(name) : null;
  if (part) return { kind: "sitemap", part: Number(part[1]) };
  if (atHome && name === "feed.xml") return { kind: "feed", format: "rss" };
  if (atHome && name === "feed.json") return { kind: "feed", format: "json" };
  return null;
}

const label = (document: Document): string =>
  document.kind === "robots"
    ? "robots.txt"
    : document.kind === "feed"
      ? `feed.${document.format === "rss" ? "xml" : "json"}`
      : document.part === null
        ? "sitemap.xml"
        : "sitemap-{n}.xml";

const TEXT_TYPE = "text/plain; charset=utf-8";
const XML_TYPE = "application/xml; charset=utf-8";

export interface MatchedDocument {
  /** The route label for metrics and logs. */
  route: string;
  respond: () => Promise<Response>;
}

export function documentsRoutes(deps: ReadDeps) {
  const { db, reader, config } = deps;
  const prefix = hostedPagesPrefix(config) || "/newsrooms";
  const origin = new URL(config.NEWSROOM_HOST).origin;
  const newsroomHost = config.NEWSROOM_HOST.replace(/\/+$/, "");

  /** The document of one newsroom. */
  const newsroomDocument = async (
    newsroom: Newsroom,
    place: { title: string; home: string; sitemapUrl: string; live: boolean },
    document: Exclude<Document, { kind: "robots" }>,
    tags: { sitemap: string[]; feed: string[] },
    scope: string | null,
  ): Promise<ReadOutcome> => {
    if (document.kind === "feed") {
      const feed = await siteFeed(db, newsroom, place, document.format);
      return found(new TextDocument(feed.body, feed.contentType), tags.feed, scope, {
        lastModified: feed.lastModified,
        noindex: !place.live,
      });
    }
    const sitemap = await sitemapDocument(db, newsroom, place, document.part);
    if (!sitemap) return notFoundOutcome("No such sitemap part.", tags.sitemap, scope);
    return found(new TextDocument(sitemap.xml, XML_TYPE), tags.sitemap, scope, {
      lastModified: sitemap.lastModified,
      noindex: !place.live,
    });
  };

  const house = (request: Request, document: Exclude<Document, { kind: "robots" }>) =>
    reader.serve(request, async () => {
      const newsroom = await houseNewsroom(db, config);
      const org = newsroom.ownerId ? await organizationOfPages(db, newsroom.ownerId) : null;
      const home = `${origin}/newsroom`;
      const place = {
        title: org?.name ?? config.HOUSE_ORG,
        home,
        sitemapUrl: `${origin}/sitemap.xml`,
        live: true,
      };
      const tags = { sitemap: houseTags.sitemap(), feed: houseTags.index() };
      return newsroomDocument(newsroom, place, document, tags, newsroom.ownerId);
    });

  const serviceRobotsTxt = (request: Request) =>
    reader.serve(request, async () => {
      const sites = await enabledSiteSlugs(db);
      const text = serviceRobots(
        { sitemapUrl: `${origin}/sitemap.xml` },
        sites.map((site) => ({
          path: `${prefix}/${site.slug}`,
          live: site.live,
          sitemapUrl: site.onClientHost ? null : `${newsroomHost}/${site.slug}/sitemap.xml`,
        })),
      );
      // Of no one organization: any site change drops it (organization:unknown).
      return found(new TextDocument(text, TEXT_TYPE), ["robots"], null);
    });

  const hostedSite = (
    request: Request,
    slug: string,
    document: Exclude<Document, { kind: "robots" }>,
  ) =>
    reader.serve(request, async () => {
      const site = await siteBySlug(db, config.NEWSROOM_HOST, slug);
      if (!site)
        return notFoundOutcome("No enabled newsroom with this site.", siteTags.site(slug), null);
      // Under this host's path: the site's feeds link its pages here, whatever its canonical
      // address; its sitemap lists the canonical addresses (the client hostname once active), as
      // the pages' rel=canonical names them, from its place here.
      const here = `${newsroomHost}/${slug}`;
      const home = document.kind === "sitemap" ? site.record.canonical_url : here;
      const place = {
        title: site.record.name,
        home,
        sitemapUrl: `${here}/sitemap.xml`,
        live: site.record.live,
      };
      const newsroom = { ...site.newsroom, itemBase: home, topicBase: `${home}/topics` };
      const tags = { sitemap: siteTags.sitemap(slug), feed: siteTags.index(slug) };
      return newsroomDocument(newsroom, place, document, tags, site.organizationId);
    });

  const clientHost = (request: Request, hostname: string, document: Document) =>
    reader.serve(request, async () => {
      const site = await siteByHostname(db, config.NEWSROOM_HOST, hostname);
      if (!site) {
        return notFoundOutcome(
          "No enabled newsroom on this hostname.",
          siteTags.host(null, hostname),
          null,
        );
      }
      const slug = site.record.site;
      const hostTags = siteTags.host(slug, hostname);
      const home = `https://${hostname}`;
      const sitemapUrl = `${home}/sitemap.xml`;
      if (document.kind === "robots") {
        const text = siteRobots({ live: site.record.live, sitemapUrl });
        return found(new TextDocument(text, TEXT_TYPE), hostTags, site.organizationId);
      }
      const place = { title: site.record.name, home, sitemapUrl, live: site.record.live };
      const newsroom = { ...site.newsroom, itemBase: home, topicBase: `${home}/topics` };
      const tags = {
        sitemap: [...siteTags.sitemap(slug), ...hostTags],
        feed: [...siteTags.index(slug), ...hostTags],
      };
      return newsroomDocument(newsroom, place, document, tags, site.organizationId);
    });

  return {
    /** The document a GET asks for, or null when it is not one of these (routing goes on). */
    match(request: Request): MatchedDocument | null {
      if (request.method !== "GET") return null;
      const path = pathOf(request.url);
      // Every request passes here first: the common case leaves before the host is read.
      if (!DOCUMENT_SUFFIX.test(path)) return null;
      const host = publicHostOf(request);
      if (isClientHost(host, config)) {
        const name = path.slice(1);
        const document = name.includes("/") ? null : documentNamed(name, true, true);
        if (!document) return null;
        const hostname = hostnameOf(host);
        return {
          route: `{hostname}/${label(document)}`,
          respond: () => clientHost(request, hostname, document),
        };
      }
      if (path === "/robots.txt") {
        return { route: "/robots.txt", respond: () => serviceRobotsTxt(request) };
      }
      const atRoot = path.lastIndexOf("/") === 0 ? documentNamed(path.slice(1), true, false) : null;
      if (atRoot && atRoot.kind !== "robots") {
        return { route: `/${label(atRoot)}`, respond: () => house(request, atRoot) };
      }
      if (path.startsWith("/newsroom/")) {
        const feed = documentNamed(path.slice("/newsroom/".length), false, true);
        if (feed && feed.kind !== "robots") {
          return { route: `/newsroom/${label(feed)}`, respond: () => house(request, feed) };
        }
      }
      if (path.startsWith(`${prefix}/`)) {
        const [slug, name, ...rest] = path.slice(prefix.length + 1).split("/");
        if (!slug || !name || rest.length > 0 || slug.length > 48 || !SITE.test(slug)) return null;
        const document = documentNamed(name, true, true);
        if (!document || document.kind === "robots") return null;
        return {
          route: `${prefix}/{site}/${label(document)}`,
          respond: () => hostedSite(request, slug, document),
        };
      }
      return null;
    },
  };
}
