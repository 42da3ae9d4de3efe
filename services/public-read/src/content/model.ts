import { StoryTypeSchema } from "@newsroom/shared/records";
import { type Static, Type as T, type TSchema } from "@sinclair/typebox";

/**
 * The public content records (the spec leaves their fields open). Only published items of a
 * running newsroom, only cleared assets, only published related items.
 */
const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);
const DateTime = T.String({ format: "date-time" });

export const TopicOut = T.Object({ slug: T.String(), name: T.String() });
export type TopicOut = Static<typeof TopicOut>;

/** An asset cleared for publication. */
export const AssetOut = T.Object({
  url: T.String(),
  alt: T.String(),
  kind: T.Union([T.Literal("image"), T.Literal("video"), T.Literal("document"), T.Literal("logo")]),
  /** An uploaded image's recorded size, in pixels. */
  width: T.Optional(T.Integer({ minimum: 1 })),
  height: T.Optional(T.Integer({ minimum: 1 })),
  /** An uploaded image's WebP renditions, narrowest first, at immutable service-relative URLs. */
  variants: T.Optional(
    T.Array(
      T.Object({
        url: T.String(),
        content_type: T.String(),
        width: T.Integer({ minimum: 1 }),
        height: T.Integer({ minimum: 1 }),
      }),
    ),
  ),
});
export type AssetOut = Static<typeof AssetOut>;

export const PersonOut = T.Object({ name: T.String(), role: Nullable(T.String()) });
export type PersonOut = Static<typeof PersonOut>;

/** An item in lists: index pages, topic pages, featured set, related items. */
export const ContentSummaryOut = T.Object({
  object: T.Literal("content_item"),
  id: T.String({ format: "uuid" }),
  type: StoryTypeSchema,
  slug: T.String(),
  title: Nullable(T.String()),
  summary: Nullable(T.String()),
  /** The item's public address. */
  url: T.String(),
  /** Set for `in_the_news` items (the coverage elsewhere); null otherwise. */
  external_url: Nullable(T.String()),
  featured: T.Boolean(),
  topics: T.Array(TopicOut),
  /** The first cleared image, or null. */
  image: Nullable(AssetOut),
  published_at: DateTime,
  updated_at: DateTime,
});
export type ContentSummaryOut = Static<typeof ContentSummaryOut>;

/** One item: structured body, cleared assets, people and related published items. */
export const ContentItemOut = T.Composite([
  ContentSummaryOut,
  T.Object({
    /** Structured blocks; empty for `in_the_news`. */
    body: T.Array(T.Record(T.String(), T.Unknown())),
    assets: T.Array(AssetOut),
    people: T.Array(PersonOut),
    related: T.Array(ContentSummaryOut),
  }),
]);
export type ContentItemOut = Static<typeof ContentItemOut>;

const Paging = {
  has_more: T.Boolean(),
  next_cursor: Nullable(T.String()),
};

export const NewsroomIndexOut = T.Object({
  object: T.Literal("newsroom_index"),
  /** Newest first, 24 a page. */
  items: T.Array(ContentSummaryOut),
  /** Featured published items, newest first (at most 6); the same on every page. */
  featured: T.Array(ContentSummaryOut),
  /** Types that have published items. */
  types: T.Array(StoryTypeSchema),
  /** Topics that have published items, by name. */
  topics: T.Array(TopicOut),
  ...Paging,
});
export type NewsroomIndexOut = Static<typeof NewsroomIndexOut>;

export const TopicPageOut = T.Object({
  object: T.Literal("topic_page"),
  topic: T.Composite([TopicOut, T.Object({ url: T.String() })]),
  items: T.Array(ContentSummaryOut),
  ...Paging,
});
export type TopicPageOut = Static<typeof TopicPageOut>;

export const SearchDocumentOut = T.Object({
  id: T.String(),
  title: Nullable(T.String()),
  summary: Nullable(T.String()),
  /** The body as plain text. */
  text: T.String(),
  url: T.String(),
  type: StoryTypeSchema,
  /** Topic names. */
  topics: T.Array(T.String()),
  published_at: DateTime,
});
export type SearchDocumentOut = Static<typeof SearchDocumentOut>;

export const SearchDocumentsOut = T.Object({
  object: T.Literal("search_documents"),
  /** At most 500, newest first. */
  documents: T.Array(SearchDocumentOut),
});
export type SearchDocumentsOut = Static<typeof SearchDocumentsOut>;

export const SitemapOut = T.Object({
  object: T.Literal("sitemap"),
  entries: T.Array(T.Object({ loc: T.String(), lastmod: DateTime })),
});
export type SitemapOut = Static<typeof SitemapOut>;

export const SiteOut = T.Object({
  object: T.Literal("site"),
  site: T.String(),
  name: T.String(),
  publisher: T.String(),
  accent: T.String(),
  /** A cleared logo, or null. */
  logo: Nullable(AssetOut),
  /** Indexable by search engines. */
  live: T.Boolean(),
  /** The active client hostname (`https://{hostname}`), else `{NEWSROOM_HOST}/{site}`. */
  canonical_url: T.String(),
  /** The active client hostname, or null. */
  hostname: Nullable(T.String()),
});
export type SiteOut = Static<typeof SiteOut>;
