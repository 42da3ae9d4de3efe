import type { EventBus } from "@newsroom/shared/bus/index";
import type { Queryable } from "@newsroom/shared/db/index";
import { previewLinks, stories, storyVersions } from "@newsroom/shared/db/schema";
import { EVENT } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import { hashPreviewToken, isPreviewToken } from "@newsroom/shared/preview-links";
import { and, eq } from "drizzle-orm";
import { publicAssetsById } from "../assets/public-assets.ts";
import { publicBodies, publicTexts } from "../content/body.ts";
import type { ContentItemOut } from "../content/model.ts";
import type { Newsroom } from "../content/service.ts";
import { clearedAssetsOfStories, peopleOfStory, topicsOfStories } from "../content/store.ts";
import type { Brand } from "./brand.ts";
import { itemPage } from "./item-page.ts";
import { plainNotFoundPage } from "./not-found-page.ts";

/**
 * An embargoed story's preview link, `{home}/preview/{token}` on its organization's newsroom:
 * the story's approved version through the public item template, with cleared images only (what
 * readers will see), an embargo banner, `noindex` and `Cache-Control: private, no-store` on every
 * answer, so neither the gateway's answer cache nor a CDN keeps it. Nothing lists it.
 */

/** Every answer of a preview link, 200, redirect or 404: nobody may keep or index it. */
const PREVIEW_HEADERS = {
  "cache-control": "private, no-store",
  "x-robots-tag": "noindex, nofollow",
  "referrer-policy": "no-referrer",
};

/**
 * When the embargo lifts, as the banner says it. The story records no publication time yet, so
 * this says "until publication"; once stories carry `publish_at`, this is the one place to read
 * it.
 */
export function embargoText(_story: { status: string }): string {
  return "Embargoed until publication";
}

async function linkedStory(db: Queryable, token: string) {
  const [row] = await db
    .select({
      linkId: previewLinks.id,
      organizationId: previewLinks.organizationId,
      expiresAt: previewLinks.expiresAt,
      revokedAt: previewLinks.revokedAt,
      story: stories,
    })
    .from(previewLinks)
    .innerJoin(
      stories,
      and(
        eq(stories.id, previewLinks.storyId),
        eq(stories.organizationId, previewLinks.organizationId),
      ),
    )
    .where(eq(previewLinks.tokenHash, hashPreviewToken(token)));
  return row ?? null;
}

async function currentVersion(db: Queryable, storyId: string, version: number) {
  const [row] = await db
    .select()
    .from(storyVersions)
    .where(and(eq(storyVersions.storyId, storyId), eq(storyVersions.version, version)));
  return row ?? null;
}

/** The story's approved version as its public item page will show it. */
async function embargoedItem(
  db: Queryable,
  organizationId: string,
  newsroom: Newsroom,
  story: typeof stories.$inferSelect,
  version: typeof storyVersions.$inferSelect,
): Promise<ContentItemOut> {
  const [[texts], [body], topics, assetRows, people] = await Promise.all([
    publicTexts(db, organizationId, [{ title: version.title, summary: version.summary }]),
    story.type === "in_the_news"
      ? Promise.resolve([[]])
      : publicBodies(db, organizationId, [version.body]),
    topicsOfStories(db, organizationId, [story.id]),
    clearedAssetsOfStories(db, organizationId, [story.id]),
    peopleOfStory(db, organizationId, story.id),
  ]);
  const assets = await publicAssetsById(db, organizationId, assetRows);
  const storyAssets = assetRows.map((row) => assets.get(row.id)!);
  const now = new Date().toISOString();
  return {
    object: "content_item",
    id: story.id,
    type: story.type,
    slug: story.slug,
    title: texts?.title ?? null,
    summary: texts?.summary ?? null,
    url: `${newsroom.itemBase}/${encodeURIComponent(story.slug)}`,
    external_url: story.externalUrl,
    featured: story.featured,
    topics: topics.map(({ slug, name }) => ({ slug, name })),
    image: storyAssets.find((asset) => asset.kind === "image") ?? null,
    published_at: now,
    updated_at: version.createdAt.toISOString(),
    body: body ?? [],
    assets: storyAssets,
    people,
    related: [],
  };
}

/** Tells the workspace (the table's writer) that the link was opened. Best effort. */
async function announceOpened(bus: EventBus, organizationId: string, linkId: string) {
  try {
    await bus.publish({
      id: newId(),
      type: EVENT.previewLinkOpened,
      created_at: new Date().toISOString(),
      data: { organization_id: organizationId, preview_link_id: linkId },
    });
  } catch (error) {
    log.warn("preview link opening not announced", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

function notFound(): Response {
  return new Response(plainNotFoundPage().value, {
    status: 404,
    headers: { "content-type": "text/html; charset=utf-8", ...PREVIEW_HEADERS },
  });
}

/** The newsroom a link's page is shown on, and its brand. */
export interface PreviewPlace {
  newsroom: Newsroom;
  brand: Brand;
}

/**
 * The answer to `{home}/preview/{token}` on a newsroom (`opened`: null for no newsroom here).
 * 404 for a token that is not a link's, revoked, expired, or another organization's than the
 * newsroom's; a published story's link answers 303 to its public page; a story no longer
 * approved or scheduled (back to draft, unpublished, archived) is 404.
 */
export async function previewLinkAnswer(
  db: Queryable,
  bus: EventBus,
  token: string,
  opened: PreviewPlace | null,
  /** The house newsroom also hosts the links of an organization without a site of its own. */
  placeOfSiteless?: (organizationId: string) => Promise<PreviewPlace | null>,
): Promise<Response> {
  if (!opened || !isPreviewToken(token)) return notFound();
  const link = await linkedStory(db, token);
  if (!link || link.revokedAt || link.expiresAt.getTime() <= Date.now()) return notFound();
  const place =
    link.organizationId === opened.newsroom.ownerId
      ? opened
      : ((await placeOfSiteless?.(link.organizationId)) ?? null);
  if (!place) return notFound();
  const { newsroom, brand } = place;
  const { story } = link;
  if (story.status === "published") {
    return new Response(null, {
      status: 303,
      headers: {
        location: `${newsroom.itemBase}/${encodeURIComponent(story.slug)}`,
        ...PREVIEW_HEADERS,
      },
    });
  }
  if (story.status !== "approved" && story.status !== "scheduled") return notFound();
  const version = story.approvedVersion
    ? await currentVersion(db, story.id, story.approvedVersion)
    : null;
  if (!version) return notFound();
  const item = await embargoedItem(db, link.organizationId, newsroom, story, version);
  const banner = `${embargoText(story)}: a preview for you alone. Do not share or publish this page before then.`;
  const page = itemPage(brand, item, { preview: banner }).value;
  await announceOpened(bus, link.organizationId, link.linkId);
  return new Response(page, {
    status: 200,
    headers: { "content-type": "text/html; charset=utf-8", ...PREVIEW_HEADERS },
  });
}
