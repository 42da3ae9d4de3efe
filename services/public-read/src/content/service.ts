import type { Queryable } from "@newsroom/shared/db/index";
import { STORY_TYPES, type StoryType } from "@newsroom/shared/db/schema";
import { iso } from "@newsroom/shared/records";
import { publicAssetsById } from "../assets/public-assets.ts";
import { plainText, publicBodies, publicTexts } from "./body.ts";
import { encodeCursor, type Position } from "./cursor.ts";
import type {
  AssetOut,
  ContentItemOut,
  ContentSummaryOut,
  NewsroomIndexOut,
  SearchDocumentsOut,
  SitemapOut,
  TopicOut,
  TopicPageOut,
} from "./model.ts";
import {
  clearedAssetsOfStories,
  peopleOfStory,
  publishedItemBySlug,
  publishedLocations,
  publishedPage,
  publishedRelated,
  publishedTopic,
  publishedTopics,
  publishedTypes,
  publishedWithBodies,
  type SummaryRow,
  topicsOfStories,
} from "./store.ts";

export const PAGE_SIZE = 24;
export const FEATURED_SIZE = 6;
export const SEARCH_DOCUMENTS_MAX = 500;
/** The sitemap protocol's limit for one file. */
export const SITEMAP_ENTRIES_MAX = 50_000;

/**
 * A newsroom whose published content may be shown: the house newsroom or a hosted site.
 * `organizationId` is null when there is nothing to show (no such organization, or its newsroom
 * is not running): lists are then empty and single items not found.
 */
export interface Newsroom {
  organizationId: string | null;
  /** The organization behind it, running or not (what cache invalidation is keyed on). */
  ownerId: string | null;
  /** Items live at `{itemBase}/{slug}`. */
  itemBase: string;
  /** Topics live at `{topicBase}/{slug}`. */
  topicBase: string;
}

export interface IndexFilter {
  type?: StoryType;
  topic?: string;
  after?: Position;
}

async function summaries(
  db: Queryable,
  newsroom: Newsroom & { organizationId: string },
  rows: SummaryRow[],
): Promise<ContentSummaryOut[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [topicRows, assetRows, texts] = await Promise.all([
    topicsOfStories(db, newsroom.organizationId, ids),
    clearedAssetsOfStories(db, newsroom.organizationId, ids),
    publicTexts(db, newsroom.organizationId, rows),
  ]);
  const topicsOf = new Map<string, TopicOut[]>();
  for (const t of topicRows) {
    topicsOf.set(t.storyId, [...(topicsOf.get(t.storyId) ?? []), { slug: t.slug, name: t.name }]);
  }
  const imageOf = new Map<string, AssetOut>();
  const images = assetRows.filter((a) => a.kind === "image");
  const publicImages = await publicAssetsById(db, newsroom.organizationId, images);
  for (const a of images) {
    if (!imageOf.has(a.storyId)) imageOf.set(a.storyId, publicImages.get(a.id)!);
  }
  return texts.map((row) => ({
    object: "content_item" as const,
    id: row.id,
    type: row.type,
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    url: itemUrl(newsroom, row.slug),
    external_url: row.type === "in_the_news" ? row.externalUrl : null,
    featured: row.featured,
    topics: topicsOf.get(row.id) ?? [],
    image: imageOf.get(row.id) ?? null,
    published_at: iso(row.publishedAt ?? row.updatedAt),
    updated_at: iso(row.updatedAt),
  }));
}

function itemUrl(newsroom: Newsroom, slug: string): string {
  return `${newsroom.itemBase}/${encodeURIComponent(slug)}`;
}

function showable(newsroom: Newsroom): newsroom is Newsroom & { organizationId: string } {
  return newsroom.organizationId !== null;
}

/** One page of items plus the page-independent parts of the index. */
async function page(
  db: Queryable,
  newsroom: Newsroom & { organizationId: string },
  filter: IndexFilter,
) {
  const rows = await publishedPage(db, newsroom.organizationId, {
    type: filter.type,
    topic: filter.topic,
    after: filter.after,
    limit: PAGE_SIZE + 1,
  });
  const hasMore = rows.length > PAGE_SIZE;
  const shown = rows.slice(0, PAGE_SIZE);
  const last = shown.at(-1);
  return {
    items: await summaries(db, newsroom, shown),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor({ at: last.positionAt, id: last.id }) : null,
  };
}

/** The index: items newest first 24 a page, the featured set, available types and topics. */
export async function newsroomIndex(
  db: Queryable,
  newsroom: Newsroom,
  filter: IndexFilter,
): Promise<NewsroomIndexOut> {
  if (!showable(newsroom)) {
    return {
      object: "newsroom_index",
      items: [],
      featured: [],
      types: [],
      topics: [],
      has_more: false,
      next_cursor: null,
    };
  }
  const orgId = newsroom.organizationId;
  const [items, featuredRows, types, topicRows] = await Promise.all([
    page(db, newsroom, filter),
    publishedPage(db, orgId, { featured: true, limit: FEATURED_SIZE }),
    publishedTypes(db, orgId),
    publishedTopics(db, orgId),
  ]);
  return {
    object: "newsroom_index",
    items: items.items,
    featured: await summaries(db, newsroom, featuredRows),
    types: STORY_TYPES.filter((type) => types.includes(type)),
    topics: topicRows.map((t) => ({ slug: t.slug, name: t.name })),
    has_more: items.has_more,
    next_cursor: items.next_cursor,
  };
}

/** A topic with published items, and a page of them; null when there is no such topic. */
export async function topicPage(
  db: Queryable,
  newsroom: Newsroom,
  slug: string,
  after: Position | undefined,
): Promise<TopicPageOut | null> {
  if (!showable(newsroom)) return null;
  const topic = await publishedTopic(db, newsroom.organizationId, slug);
  if (!topic) return null;
  const items = await page(db, newsroom, { topic: slug, after });
  return {
    object: "topic_page",
    topic: {
      slug: topic.slug,
      name: topic.name,
      url: `${newsroom.topicBase}/${encodeURIComponent(topic.slug)}`,
    },
    ...items,
  };
}

/** One published item; null when there is none with this slug. */
export async function contentItem(
  db: Queryable,
  newsroom: Newsroom,
  slug: string,
): Promise<ContentItemOut | null> {
  if (!showable(newsroom)) return null;
  const orgId = newsroom.organizationId;
  const row = await publishedItemBySlug(db, orgId, slug);
  if (!row) return null;
  const [[summary], assetRows, people, relatedRows, [body]] = await Promise.all([
    summaries(db, newsroom, [row]),
    clearedAssetsOfStories(db, orgId, [row.id]),
    peopleOfStory(db, orgId, row.id),
    publishedRelated(db, orgId, row.id),
    row.type === "in_the_news" ? Promise.resolve([[]]) : publicBodies(db, orgId, [row.body ?? []]),
  ]);
  const publicAssets = await publicAssetsById(db, orgId, assetRows);
  return {
    ...summary!,
    body: body ?? [],
    assets: assetRows.map((a) => publicAssets.get(a.id)!),
    people,
    related: await summaries(
      db,
      newsroom,
      relatedRows.filter((r) => r.id !== row.id),
    ),
  };
}

/** Up to 500 flattened documents for a site-search index, newest first. */
export async function searchDocuments(
  db: Queryable,
  newsroom: Newsroom,
): Promise<SearchDocumentsOut> {
  if (!showable(newsroom)) return { object: "search_documents", documents: [] };
  const orgId = newsroom.organizationId;
  const rows = await publishedWithBodies(db, orgId, SEARCH_DOCUMENTS_MAX);
  const ids = rows.map((row) => row.id);
  const [topicRows, texts, bodies] = await Promise.all([
    topicsOfStories(db, orgId, ids),
    publicTexts(db, orgId, rows),
    publicBodies(
      db,
      orgId,
      rows.map((row) => (row.type === "in_the_news" ? [] : (row.body ?? []))),
    ),
  ]);
  const topicNames = new Map<string, string[]>();
  for (const t of topicRows)
    topicNames.set(t.storyId, [...(topicNames.get(t.storyId) ?? []), t.name]);
  return {
    object: "search_documents",
    documents: texts.map((row, index) => ({
      id: row.id,
      title: row.title,
      summary: row.summary,
      text: plainText(bodies[index] ?? []),
      url: itemUrl(newsroom, row.slug),
      type: row.type,
      topics: topicNames.get(row.id) ?? [],
      published_at: iso(row.publishedAt ?? row.updatedAt),
    })),
  };
}

/** One entry per published item: its address and its last change. */
export async function sitemap(db: Queryable, newsroom: Newsroom): Promise<SitemapOut> {
  if (!showable(newsroom)) return { object: "sitemap", entries: [] };
  const rows = await publishedLocations(db, newsroom.organizationId, SITEMAP_ENTRIES_MAX);
  return {
    object: "sitemap",
    entries: rows.map((row) => {
      const changed =
        row.publishedAt && row.publishedAt > row.updatedAt ? row.publishedAt : row.updatedAt;
      return { loc: itemUrl(newsroom, row.slug), lastmod: iso(changed) };
    }),
  };
}
