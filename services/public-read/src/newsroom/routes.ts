import { Elysia } from "elysia";
import { houseTags } from "../caching/cache-tags.ts";
import { found, notFoundOutcome } from "../caching/reader.ts";
import { decodeCursor } from "../content/cursor.ts";
import {
  ContentItemOut,
  NewsroomIndexOut,
  SearchDocumentsOut,
  SitemapOut,
  TopicPageOut,
} from "../content/model.ts";
import { CursorQuery, IndexQuery, SlugParams } from "../content/params.ts";
import {
  contentItem,
  newsroomIndex,
  searchDocuments,
  sitemap,
  topicPage,
} from "../content/service.ts";
import { publicContent } from "../contract.ts";
import type { ReadDeps } from "../deps.ts";
import { houseNewsroom } from "./service.ts";

/**
 * The house newsroom (the organization named by HOUSE_ORG): index, items, topics, search
 * documents and sitemap. Purge keys: `newsroom-index`, `content:<id>`, `topic:<slug>`,
 * `search`, `sitemap`.
 */
export function newsroomRoutes(deps: ReadDeps) {
  const { db, reader } = deps;
  const house = () => houseNewsroom(db, deps.config);
  return new Elysia({ name: "public-read:newsroom" })
    .get(
      "/v1/public/newsroom",
      ({ request, query }) => {
        const after = query.cursor ? decodeCursor(query.cursor) : undefined;
        return reader.serve(request, async () => {
          const newsroom = await house();
          const body = await newsroomIndex(db, newsroom, {
            type: query.type,
            topic: query.topic,
            after,
          });
          return found(body, houseTags.index(query.topic), newsroom.ownerId);
        });
      },
      {
        query: IndexQuery,
        detail: publicContent({
          operationId: "getNewsroomIndex",
          summary: "Newsroom index",
          description:
            "Published items newest first, 24 a page, with the featured set and the types and topics that have published items; filters type and topic combine.",
          tags: ["Public news"],
          schema: NewsroomIndexOut,
          parameters: true,
        }),
      },
    )
    .get(
      "/v1/public/newsroom/:slug",
      ({ request, params }) =>
        reader.serve(request, async () => {
          const newsroom = await house();
          const item = await contentItem(db, newsroom, params.slug);
          if (!item) {
            return notFoundOutcome(
              "No published item with this slug.",
              houseTags.missingItem(),
              newsroom.ownerId,
            );
          }
          const tags = houseTags.item(
            item.id,
            item.related.map((r) => r.id),
          );
          return found(item, tags, newsroom.ownerId);
        }),
      {
        params: SlugParams,
        detail: publicContent({
          operationId: "getNewsroomItem",
          summary: "One published item",
          description:
            "Structured body, cleared assets, people and published related items. An `in_the_news` item has an empty body and an `external_url`.",
          tags: ["Public news"],
          schema: ContentItemOut,
          parameters: true,
          notFound: "No published item with this slug (`not_found`, cached 60 s).",
        }),
      },
    )
    .get(
      "/v1/public/topics/:slug",
      ({ request, params, query }) => {
        const after = query.cursor ? decodeCursor(query.cursor) : undefined;
        return reader.serve(request, async () => {
          const newsroom = await house();
          const page = await topicPage(db, newsroom, params.slug, after);
          const tags = houseTags.topic(params.slug);
          if (!page) return notFoundOutcome("No such topic.", tags, newsroom.ownerId);
          return found(page, tags, newsroom.ownerId);
        });
      },
      {
        params: SlugParams,
        query: CursorQuery,
        detail: publicContent({
          operationId: "getTopic",
          summary: "Topic page",
          description:
            "The house newsroom's published items of one topic, newest first, 24 a page.",
          tags: ["Public news"],
          schema: TopicPageOut,
          parameters: true,
          notFound: "No such topic with published items (`not_found`).",
        }),
      },
    )
    .get(
      "/v1/public/search/newsroom",
      ({ request }) =>
        reader.serve(request, async () => {
          const newsroom = await house();
          return found(await searchDocuments(db, newsroom), houseTags.search(), newsroom.ownerId);
        }),
      {
        detail: publicContent({
          operationId: "getSearchDocuments",
          summary: "Search documents (up to 500)",
          description:
            "The newsroom's published items as plain-text documents for a site search index, newest first, at most 500.",
          tags: ["Public news"],
          schema: SearchDocumentsOut,
        }),
      },
    )
    .get(
      "/v1/public/sitemap/newsroom",
      ({ request }) =>
        reader.serve(request, async () => {
          const newsroom = await house();
          return found(await sitemap(db, newsroom), houseTags.sitemap(), newsroom.ownerId);
        }),
      {
        detail: publicContent({
          operationId: "getNewsroomSitemap",
          summary: "Sitemap entries",
          description:
            "The address and last change of every published item of the house newsroom, for a sitemap.",
          tags: ["Public news"],
          schema: SitemapOut,
        }),
      },
    );
}
