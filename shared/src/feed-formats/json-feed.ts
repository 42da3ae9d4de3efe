import {
  type FeedData,
  itemLink,
  JSON_FEED_VERSION,
  type JsonFeed,
  type JsonFeedItem,
} from "./model.ts";

/** JSON Feed 1.1. */
export function renderJsonFeed(feed: FeedData): JsonFeed {
  const items = feed.items.map((entry) => {
    const item: JsonFeedItem = {
      id: entry.id,
      content_html: entry.html,
      content_text: entry.text,
      date_published: entry.publishedAt,
      date_modified: entry.updatedAt,
    };
    const link = itemLink(entry);
    if (link) item.url = link;
    if (entry.externalUrl) item.external_url = entry.externalUrl;
    if (entry.title !== null) item.title = entry.title;
    if (entry.summary !== null) item.summary = entry.summary;
    if (entry.topics.length > 0) item.tags = entry.topics;
    return item;
  });
  return {
    version: JSON_FEED_VERSION,
    title: feed.title,
    language: feed.language,
    ...(feed.homePageUrl ? { home_page_url: feed.homePageUrl } : {}),
    feed_url: feed.feedUrl,
    description: feed.description,
    items,
  };
}
