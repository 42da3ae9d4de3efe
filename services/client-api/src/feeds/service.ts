import { unclearedAssetUrls, withoutUrls } from "@newsroom/shared/asset-urls";
import type { Db } from "@newsroom/shared/db/index";
import { bodyHtml, bodyText, escapeHtml } from "@newsroom/shared/feed-formats/body-text";
import { FEED_LANGUAGE, type FeedData } from "@newsroom/shared/feed-formats/model";
import { storyRecords } from "@newsroom/shared/story-records";
import type { Caller } from "../auth/service.ts";
import { currentBodies, findHostedSite, listPublishedRows, newestStoryChange } from "./store.ts";

/** The newsroom's address: the client's hostname once active, otherwise the hosted one. */
function newsroomAddress(
  newsroomHost: string,
  site: { slug: string; hostname: string | null } | null,
): string | null {
  if (!site) return null;
  if (site.hostname) return `https://${site.hostname}`;
  return `${newsroomHost.replace(/\/$/, "")}/${site.slug}`;
}

/**
 * The 50 most recent published stories of the caller's organization; none while its newsroom is
 * not running. Its last change is the newest change of any of the organization's stories, so that
 * unpublishing one (which leaves the feed older) still moves it. Bodies as plain text and as minimal escaped HTML; a story without body text (an
 * `in_the_news` item) uses its summary. A feed is public once given out: an uncleared asset's URL
 * written in a title, summary or body is removed, as on every public surface.
 */
export async function buildFeed(
  deps: { db: Db; newsroomHost: string },
  caller: Caller,
  feedUrl: string,
): Promise<{ feed: FeedData; lastModified: Date | null }> {
  const feed: FeedData = {
    title: caller.organizationName,
    language: FEED_LANGUAGE,
    description: `Published stories of ${caller.organizationName}.`,
    homePageUrl: null,
    feedUrl,
    items: [],
  };
  if (!caller.newsroomRunning) return { feed, lastModified: null };
  const [rows, site, lastModified] = await Promise.all([
    listPublishedRows(deps.db, caller.organizationId),
    findHostedSite(deps.db, caller.organizationId),
    newestStoryChange(deps.db, caller.organizationId),
  ]);
  const [stored, storedBodies] = await Promise.all([
    storyRecords(deps.db, caller.organizationId, rows),
    currentBodies(deps.db, caller.organizationId, rows),
  ]);
  const uncleared = await unclearedAssetUrls(deps.db, caller.organizationId, [
    stored.map((story) => [story.title, story.summary]),
    [...storedBodies.values()],
  ]);
  const records = withoutUrls(stored, uncleared);
  const bodies = new Map(
    [...storedBodies].map(([id, body]) => [id, withoutUrls(body, uncleared)] as const),
  );
  const home = newsroomAddress(deps.newsroomHost, site);
  feed.homePageUrl = home;
  feed.items = records.map((story, index) => {
    const row = rows[index]!;
    const body = bodies.get(story.id) ?? [];
    const text = bodyText(body);
    const fallback = story.summary ?? story.title ?? "";
    return {
      id: story.id,
      title: story.title,
      summary: story.summary,
      url: home ? `${home}/${encodeURIComponent(story.slug)}` : null,
      externalUrl: row.externalUrl,
      text: text || fallback,
      html: text ? bodyHtml(body) : fallback ? `<p>${escapeHtml(fallback)}</p>` : "",
      topics: story.topics,
      publishedAt: story.published_at ?? story.updated_at,
      updatedAt: story.updated_at,
    };
  });
  return { feed, lastModified };
}
