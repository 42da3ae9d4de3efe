import { type Static, Type as T } from "@sinclair/typebox";

/** What both feed formats say, before either format. */
export interface FeedData {
  title: string;
  /** The language of the stories (RSS `<language>`, JSON Feed `language`). */
  language: string;
  description: string;
  /** The newsroom's home page, when there is one. */
  homePageUrl: string | null;
  /** The feed's own address, never with a key in it. */
  feedUrl: string;
  items: FeedEntry[];
}

/**
 * The address both formats give an item (RSS `<link>`, JSON Feed `url`): its page on the
 * newsroom, or the coverage elsewhere when there is no newsroom page (an `in_the_news` item of an
 * organization without a site). The coverage stays in JSON Feed's `external_url`.
 */
export function itemLink(entry: FeedEntry): string | null {
  return entry.url ?? entry.externalUrl;
}

/** The newsrooms publish in English (their pages say `lang="en"`). */
export const FEED_LANGUAGE = "en";

export interface FeedEntry {
  id: string;
  title: string | null;
  summary: string | null;
  url: string | null;
  externalUrl: string | null;
  text: string;
  html: string;
  topics: string[];
  publishedAt: string;
  updatedAt: string;
}

/**
 * JSON Feed 1.1 (https://jsonfeed.org/version/1.1), the fields this service writes. Optional
 * fields are left out rather than null, as the format asks.
 */
export const JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1";

export const JsonFeedItem = T.Object({
  id: T.String({ minLength: 1 }),
  url: T.Optional(T.String({ format: "uri" })),
  external_url: T.Optional(T.String({ format: "uri" })),
  title: T.Optional(T.String()),
  summary: T.Optional(T.String()),
  content_html: T.String(),
  content_text: T.String(),
  date_published: T.String({ format: "date-time" }),
  date_modified: T.String({ format: "date-time" }),
  tags: T.Optional(T.Array(T.String())),
});
export type JsonFeedItem = Static<typeof JsonFeedItem>;

export const JsonFeed = T.Object({
  version: T.Literal(JSON_FEED_VERSION),
  title: T.String({ minLength: 1 }),
  language: T.Optional(T.String()),
  home_page_url: T.Optional(T.String({ format: "uri" })),
  feed_url: T.Optional(T.String({ format: "uri" })),
  description: T.Optional(T.String()),
  items: T.Array(JsonFeedItem),
});
export type JsonFeed = Static<typeof JsonFeed>;

/** The media types, as the OpenAPI document names them; answers add the charset. */
export const JSON_FEED_TYPE = "application/feed+json";
export const RSS_TYPE = "application/rss+xml";
