import { withCharset } from "@newsroom/shared/content-types";
import type { Queryable } from "@newsroom/shared/db/index";
import { bodyHtml, bodyText, escapeHtml } from "@newsroom/shared/feed-formats/body-text";
import { renderJsonFeed } from "@newsroom/shared/feed-formats/json-feed";
import {
  FEED_LANGUAGE,
  type FeedData,
  JSON_FEED_TYPE,
  RSS_TYPE,
} from "@newsroom/shared/feed-formats/model";
import { renderRss } from "@newsroom/shared/feed-formats/rss";
import { iso } from "@newsroom/shared/records";
import { publicBodies, publicTexts } from "../content/body.ts";
import type { Newsroom } from "../content/service.ts";
import { publishedWithBodies, topicsOfStories } from "../content/store.ts";

/** The spec's feed size: the 50 most recent published stories. */
export const SITE_FEED_SIZE = 50;

/**
 * A newsroom's public feeds, `feed.xml` (RSS 2.0) and `feed.json` (JSON Feed 1.1), beside its
 * home page: the same formats as the client API's feeds, built from public content only
 * (published stories, cleared assets: an uncleared asset's URL never reaches a feed).
 */
export interface SiteFeedPlace {
  title: string;
  /** The newsroom's home page; the feeds live at `{home}/feed.xml` and `{home}/feed.json`. */
  home: string;
}

export function feedUrls(home: string): { rss: string; json: string } {
  return { rss: `${home}/feed.xml`, json: `${home}/feed.json` };
}

/** The `<link rel="alternate">` tags of a newsroom's pages (feed autodiscovery). */
export function feedAlternates(place: SiteFeedPlace) {
  const urls = feedUrls(place.home);
  return [
    { type: "application/rss+xml", title: `${place.title} (RSS)`, href: urls.rss },
    { type: "application/feed+json", title: `${place.title} (JSON Feed)`, href: urls.json },
  ];
}

export interface SiteFeed {
  body: string;
  contentType: string;
  /** The newest change it shows, or null when it lists nothing. */
  lastModified: Date | null;
}

async function feedData(
  db: Queryable,
  newsroom: Newsroom,
  place: SiteFeedPlace,
  feedUrl: string,
): Promise<{ data: FeedData; lastModified: Date | null }> {
  const data: FeedData = {
    title: place.title,
    language: FEED_LANGUAGE,
    description: `Published stories of ${place.title}.`,
    homePageUrl: place.home,
    feedUrl,
    items: [],
  };
  const orgId = newsroom.organizationId;
  if (orgId === null) return { data, lastModified: null };
  const stored = await publishedWithBodies(db, orgId, SITE_FEED_SIZE);
  const ids = stored.map((row) => row.id);
  const [rows, bodies, topicRows] = await Promise.all([
    publicTexts(db, orgId, stored),
    publicBodies(
      db,
      orgId,
      stored.map((row) => (row.type === "in_the_news" ? [] : (row.body ?? []))),
    ),
    topicsOfStories(db, orgId, ids),
  ]);
  const topicNames = new Map<string, string[]>();
  for (const t of topicRows)
    topicNames.set(t.storyId, [...(topicNames.get(t.storyId) ?? []), t.name]);
  let lastModified: Date | null = null;
  data.items = rows.map((row, index) => {
    const body = bodies[index] ?? [];
    const text = bodyText(body);
    const fallback = row.summary ?? row.title ?? "";
    if (!lastModified || row.updatedAt > lastModified) lastModified = row.updatedAt;
    return {
      id: row.id,
      title: row.title,
      summary: row.summary,
      url: `${newsroom.itemBase}/${encodeURIComponent(row.slug)}`,
      externalUrl: row.type === "in_the_news" ? row.externalUrl : null,
      text: text || fallback,
      html: text ? bodyHtml(body) : fallback ? `<p>${escapeHtml(fallback)}</p>` : "",
      topics: topicNames.get(row.id) ?? [],
      publishedAt: iso(row.publishedAt ?? row.updatedAt),
      updatedAt: iso(row.updatedAt),
    };
  });
  return { data, lastModified };
}

export async function siteFeed(
  db: Queryable,
  newsroom: Newsroom,
  place: SiteFeedPlace,
  format: "rss" | "json",
): Promise<SiteFeed> {
  const urls = feedUrls(place.home);
  const { data, lastModified } = await feedData(db, newsroom, place, urls[format]);
  return format === "rss"
    ? { body: renderRss(data), contentType: withCharset(RSS_TYPE), lastModified }
    : {
        body: JSON.stringify(renderJsonFeed(data)),
        contentType: withCharset(JSON_FEED_TYPE),
        lastModified,
      };
}
