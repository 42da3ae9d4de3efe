import type { EventBus } from "@newsroom/shared/bus/index";
import type { StoryType } from "@newsroom/shared/db/schema";
import { requestIdOf } from "@newsroom/shared/http/request-context";
import { pathOf, queryOf } from "@newsroom/shared/http/urls";
import { HOUSE_ICON, iconResponse } from "@newsroom/shared/icon";
import { log } from "@newsroom/shared/log";
import {
  hostedPagesPrefix,
  hostnameOf,
  isClientHost,
  publicHostOf,
} from "@newsroom/shared/page-host";
import { PREVIEW_SEGMENT } from "@newsroom/shared/preview-links";
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import { houseTags, siteTags } from "../caching/cache-tags.ts";
import { newestChange } from "../caching/conditional.ts";
import { found, notFoundOutcome, type ReadOutcome } from "../caching/reader.ts";
import { notFoundPageResponse, unavailablePageResponse } from "../caching/responses.ts";
import { decodeCursor, type Position } from "../content/cursor.ts";
import { IndexQuery, SITE_PATTERN, SLUG_PATTERN } from "../content/params.ts";
import { contentItem, type Newsroom, newsroomIndex, topicPage } from "../content/service.ts";
import type { ReadDeps } from "../deps.ts";
import { houseNewsroom } from "../newsroom/service.ts";
import { type HostedSite, siteByHostname, siteBySlug } from "../sites/service.ts";
import { hasEnabledSite } from "../sites/store.ts";
import type { Brand } from "./brand.ts";
import { brandIcon } from "./icon.ts";
import { indexPage } from "./index-page.ts";
import { itemPage } from "./item-page.ts";
import { SIGN_UP_SEGMENT } from "./newsletter-form.ts";
import { notFoundPage, plainNotFoundPage, unavailablePage } from "./not-found-page.ts";
import { type PreviewPlace, previewLinkAnswer } from "./preview-link.ts";
import { signUpPage } from "./sign-up-page.ts";
import { clearedLogoOf, organizationOfPages } from "./store.ts";
import { topicPage as renderTopicPage } from "./topic-page.ts";

/** The route label of pages served on a client's hostname (routed here, not by the router). */
export const HOST_PAGE_ROUTE = "{hostname}/*";

/** What a page address asks for, below its newsroom's home. */
type PageTarget =
  | { kind: "index" }
  | { kind: "item"; slug: string }
  | { kind: "topic"; slug: string }
  | { kind: "newsletter" }
  | { kind: "icon" }
  | { kind: "none" };

/** The icon's address at a newsroom's home; browsers ask for it at a hostname's root. */
const ICON_SEGMENT = "favicon.ico";

const SLUG = new RegExp(SLUG_PATTERN);
const SITE = new RegExp(SITE_PATTERN);
const isSlug = (value: string) => value.length <= 120 && SLUG.test(value);

/** `[]` is the index, `[slug]` an item, `["topics", slug]` a topic; anything else no page. */
function targetOf(segments: string[]): PageTarget {
  if (segments.length === 0) return { kind: "index" };
  if (segments.length === 1 && segments[0] === SIGN_UP_SEGMENT) return { kind: "newsletter" };
  if (segments.length === 1 && segments[0] === ICON_SEGMENT) return { kind: "icon" };
  if (segments.length === 1 && isSlug(segments[0]!)) return { kind: "item", slug: segments[0]! };
  if (segments.length === 2 && segments[0] === "topics" && isSlug(segments[1]!)) {
    return { kind: "topic", slug: segments[1]! };
  }
  return { kind: "none" };
}

/** The token of a preview link's address (`["preview", token]` below a home), or null. */
function previewTokenOf(segments: string[]): string | null {
  return segments.length === 2 && segments[0] === PREVIEW_SEGMENT ? segments[1]! : null;
}

/** The path below `prefix` as segments; a trailing slash is the same page. */
function segmentsAfter(path: string, prefix: string): string[] {
  return path
    .slice(prefix.length)
    .split("/")
    .filter((segment) => segment !== "");
}

interface Filters {
  type?: StoryType;
  topic?: string;
  cursor?: string;
  after?: Position;
}

/** The index's query (the JSON routes' shapes), or null when it is not one a page has. */
function filtersOf(request: Request): Filters | null {
  const query = queryOf(request.url);
  const given: Record<string, string> = {};
  for (const name of ["type", "topic", "cursor"]) {
    const values = query.getAll(name);
    if (values.length > 1) return null;
    if (values.length === 1) given[name] = values[0]!;
  }
  // The JSON routes' schema: a cursor that fits it decodes.
  if (!Value.Check(IndexQuery, given)) return null;
  const filters = given as Filters;
  if (filters.cursor) filters.after = decodeCursor(filters.cursor);
  return filters;
}

/** What a newsroom's pages are tagged with (their `Cache-Tag`). */
interface PagePlace {
  tags: {
    index: (topic?: string) => string[];
    item: (id: string, related: string[]) => string[];
    missingItem: () => string[];
    topic: (slug: string) => string[];
  };
}

const housePlace: PagePlace = { tags: houseTags };

function sitePlace(site: string, hostname?: string): PagePlace {
  const extra = hostname ? [`host:${hostname}`] : [];
  return {
    tags: {
      index: (topic) => [...siteTags.index(site, topic), ...extra],
      item: (id, related) => [...siteTags.item(site, id, related), ...extra],
      missingItem: () => [...siteTags.missingItem(site), ...extra],
      topic: (slug) => [...siteTags.topic(site, slug), ...extra],
    },
  };
}

/** A newsroom a page belongs to, read for the request. */
interface Opened {
  newsroom: Newsroom;
  site: HostedSite | null;
  /** Its home at the address being browsed, when that is not the canonical one. */
  browsedHome?: string;
}

/**
 * Newsroom pages, server-rendered from the same reads as the JSON routes, cached and purged
 * with the same keys: the house newsroom at `/newsroom`, hosted sites at NEWSROOM_HOST's path
 * (`/newsrooms/{site}`), and a site on its client's hostname (`servesHost`, `hostPage`).
 * Below each home, `preview/{token}` is an embargoed story's preview link (`preview-link.ts`),
 * read for each request outside the answer reader: never cached, tagged or listed. Its openings
 * go out on `bus`.
 */
export function pagesRoutes(deps: ReadDeps, bus: EventBus) {
  const { db, reader, config } = deps;
  const prefix = hostedPagesPrefix(config) || "/newsrooms";
  const origin = new URL(config.NEWSROOM_HOST).origin;

  const brandOf = async ({ newsroom, site, browsedHome }: Opened): Promise<Brand | null> => {
    const org = newsroom.ownerId ? await organizationOfPages(db, newsroom.ownerId) : null;
    const newsletter = org?.newsletterEnabled
      ? { org: org.slug, apiBase: config.PUBLIC_BASE_URL, browsedHome }
      : null;
    if (site) {
      const record = site.record;
      return {
        name: record.name,
        publisher: record.publisher,
        accent: record.accent,
        icon: brandIcon(record),
        logo: record.logo,
        home: record.canonical_url,
        topicBase: newsroom.topicBase,
        live: record.live,
        newsletter,
      };
    }
    if (!org || !newsroom.ownerId) return null;
    return {
      name: org.name,
      publisher: org.name,
      accent: null,
      icon: HOUSE_ICON,
      logo: await clearedLogoOf(db, newsroom.ownerId),
      home: `${origin}/newsroom`,
      topicBase: newsroom.topicBase,
      live: true,
      newsletter,
    };
  };

  /** A newsroom's brand read outside the answer cache; the 503 page when it cannot be read. */
  const readBrand = async (
    request: Request,
    open: () => Promise<Opened | null>,
  ): Promise<Brand | null | Response> => {
    try {
      const opened = await open();
      return opened && (await brandOf(opened));
    } catch (error) {
      log.warn("public read failed", {
        request_id: requestIdOf(request),
        error: error instanceof Error ? error.message : String(error),
      });
      return pageUnavailable();
    }
  };

  /** The sign-up page: read and rendered for each request, never cached (see newsletterForm). */
  const newsletterPage = async (
    request: Request,
    open: () => Promise<Opened | null>,
    missing: { tags: string[] },
  ): Promise<Response> => {
    const brand = await readBrand(request, open);
    if (brand instanceof Response) return brand;
    if (!brand) return plainNotFound(missing.tags);
    if (!brand.newsletter) {
      return notFoundPageResponse(notFoundPage(brand, brand.home).value, missing.tags.join(","));
    }
    return new Response(signUpPage(brand, brand.newsletter).value, {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    });
  };

  /** The newsroom's icon, read for each request (small, and cached by browsers for a day). */
  const iconOf = async (
    request: Request,
    open: () => Promise<Opened | null>,
    missing: { tags: string[] },
  ): Promise<Response> => {
    const brand = await readBrand(request, open);
    if (brand instanceof Response) return brand;
    return brand ? iconResponse(brand.icon) : plainNotFound(missing.tags);
  };

  /** A preview link's answer on the newsroom `open` reads; the 503 page when it cannot be read. */
  const previewPage = async (
    request: Request,
    token: string,
    open: () => Promise<Opened | null>,
    placeOfSiteless?: (organizationId: string) => Promise<PreviewPlace | null>,
  ): Promise<Response> => {
    try {
      const opened = await open();
      const brand = opened && (await brandOf(opened));
      return await previewLinkAnswer(
        db,
        bus,
        token,
        opened && brand ? { newsroom: opened.newsroom, brand } : null,
        placeOfSiteless,
      );
    } catch (error) {
      log.warn("public read failed", {
        request_id: requestIdOf(request),
        error: error instanceof Error ? error.message : String(error),
      });
      return pageUnavailable();
    }
  };

  /** Reads and renders one page of a newsroom. */
  const page = (
    request: Request,
    place: PagePlace,
    target: PageTarget,
    open: () => Promise<(Opened & { scope: string | null }) | null>,
    missing: { tags: string[] },
  ): Promise<Response> => {
    if (target.kind === "newsletter") return newsletterPage(request, open, missing);
    if (target.kind === "icon") return iconOf(request, open, missing);
    const filters = target.kind === "item" ? {} : filtersOf(request);
    if (!filters || target.kind === "none") {
      return reader.serve(
        request,
        async () => {
          const opened = await open();
          if (!opened) return plainMissing(missing.tags);
          const brand = await brandOf(opened);
          if (!brand) return plainMissing(missing.tags);
          const tags = place.tags.missingItem();
          return notFoundOutcome(
            "No page here.",
            tags,
            opened.scope,
            notFoundPage(brand, brand.home),
          );
        },
        pageUnavailable,
      );
    }
    return reader.serve(
      request,
      async (): Promise<ReadOutcome> => {
        const opened = await open();
        if (!opened) return plainMissing(missing.tags);
        const { newsroom, scope } = opened;
        const brand = await brandOf(opened);
        if (!brand) return plainMissing(missing.tags);
        const notFound = (tags: string[]) =>
          notFoundOutcome("No page here.", tags, scope, notFoundPage(brand, brand.home));
        if (target.kind === "index") {
          const index = await newsroomIndex(db, newsroom, filters);
          return found(indexPage(brand, index, filters), place.tags.index(filters.topic), scope, {
            lastModified: newestChange([...index.items, ...index.featured]),
            noindex: !brand.live,
          });
        }
        if (target.kind === "topic") {
          const topic = await topicPage(db, newsroom, target.slug, filters.after);
          const tags = place.tags.topic(target.slug);
          if (!topic) return notFound(tags);
          return found(renderTopicPage(brand, topic, filters.cursor), tags, scope, {
            lastModified: newestChange(topic.items),
            noindex: !brand.live,
          });
        }
        const item = await contentItem(db, newsroom, target.slug);
        if (!item) return notFound(place.tags.missingItem());
        const tags = place.tags.item(
          item.id,
          item.related.map((r) => r.id),
        );
        return found(itemPage(brand, item), tags, scope, {
          lastModified: newestChange([item, ...item.related]),
          noindex: !brand.live,
        });
      },
      pageUnavailable,
    );
  };

  /**
   * An organization without an enabled site previews on the house newsroom's address under its
   * own name, as the workspace's preview does; one with a site only on that site.
   */
  const siteless = async (organizationId: string): Promise<PreviewPlace | null> => {
    if (await hasEnabledSite(db, organizationId)) return null;
    const house = await houseNewsroom(db, config);
    const newsroom = { ...house, organizationId, ownerId: organizationId };
    const brand = await brandOf({ newsroom, site: null });
    return brand && { newsroom, brand };
  };

  const housePage = (request: Request) => {
    const segments = segmentsAfter(pathOf(request.url), "/newsroom");
    const open = async () => {
      const newsroom = await houseNewsroom(db, config);
      return { newsroom, site: null, scope: newsroom.ownerId };
    };
    const token = previewTokenOf(segments);
    if (token !== null) return previewPage(request, token, open, siteless);
    return page(request, housePlace, targetOf(segments), open, {
      tags: houseTags.missingItem(),
    });
  };

  const sitePage = (request: Request) => {
    const [site, ...rest] = segmentsAfter(pathOf(request.url), prefix);
    if (!site || !SITE.test(site)) return Promise.resolve(plainNotFound([]));
    const open = async () => {
      const hosted = await siteBySlug(db, config.NEWSROOM_HOST, site);
      return (
        hosted && {
          newsroom: hosted.newsroom,
          site: hosted,
          scope: hosted.organizationId,
          // Its canonical home may be a hostname that does not resolve here (development).
          browsedHome: `${origin}${prefix}/${site}`,
        }
      );
    };
    const token = previewTokenOf(rest);
    if (token !== null) return previewPage(request, token, open);
    return page(request, sitePlace(site), targetOf(rest), open, { tags: siteTags.site(site) });
  };

  const routes = new Elysia({ name: "public-read:pages" })
    // The service's own host: the house icon, with no read.
    .get("/favicon.ico", () => iconResponse(HOUSE_ICON))
    .get("/newsroom", ({ request }) => housePage(request))
    .get("/newsroom/*", ({ request }) => housePage(request))
    .get(prefix, ({ request }) => sitePage(request))
    .get(`${prefix}/*`, ({ request }) => sitePage(request));

  return {
    routes,
    /** The brand of a newsroom's pages (the preview renders with it). */
    brandOf,
    /**
     * Whether the request is for a page on a client's hostname: sent to a host that is not the
     * service's own, for anything but the API (`/v1/…`) and health.
     */
    servesHost(request: Request): boolean {
      const path = pathOf(request.url);
      if (path.startsWith("/v1/") || path === "/v1" || path.startsWith("/health")) return false;
      if (request.method !== "GET" && request.method !== "HEAD") return false;
      return isClientHost(publicHostOf(request), config);
    },
    /** A page of the site served on the request's hostname; a plain 404 page for any other. */
    hostPage(request: Request): Promise<Response> {
      const hostname = hostnameOf(publicHostOf(request) ?? "");
      const segments = segmentsAfter(pathOf(request.url), "");
      const token = previewTokenOf(segments);
      if (token !== null) {
        return previewPage(request, token, async () => {
          const hosted = await siteByHostname(db, config.NEWSROOM_HOST, hostname);
          return hosted && { newsroom: hosted.newsroom, site: hosted };
        });
      }
      const target = targetOf(segments);
      // The site is resolved inside the read: the answer is tagged per hostname and dropped
      // with `host:<hostname>` and `site:<site>` when the site or its hostnames change.
      let site = "";
      const place = {
        tags: {
          index: (topic?: string) => sitePlace(site, hostname).tags.index(topic),
          item: (id: string, related: string[]) => sitePlace(site, hostname).tags.item(id, related),
          missingItem: () => sitePlace(site, hostname).tags.missingItem(),
          topic: (slug: string) => sitePlace(site, hostname).tags.topic(slug),
        },
      };
      return page(
        request,
        place,
        target,
        async () => {
          const hosted = await siteByHostname(db, config.NEWSROOM_HOST, hostname);
          if (!hosted) return null;
          site = hosted.record.site;
          return { newsroom: hosted.newsroom, site: hosted, scope: hosted.organizationId };
        },
        { tags: siteTags.host(null, hostname) },
      );
    },
  };
}

/** A page whose content cannot be read answers the 503 page, not the JSON error. */
function pageUnavailable(): Response {
  return unavailablePageResponse(unavailablePage().value);
}

function plainMissing(tags: string[]): ReadOutcome {
  return notFoundOutcome("No newsroom here.", tags, null, plainNotFoundPage());
}

function plainNotFound(tags: string[]): Response {
  return notFoundPageResponse(plainNotFoundPage().value, tags.join(","));
}
