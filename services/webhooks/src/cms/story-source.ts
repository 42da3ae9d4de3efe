import type { Db } from "@newsroom/shared/db/index";
import {
  assets,
  assetVariants,
  hostnames,
  sites,
  stories,
  storyVersions,
} from "@newsroom/shared/db/schema";
import { canonicalUrl } from "@newsroom/shared/site-address";
import type { StoryBody } from "@newsroom/shared/story-body";
import { readStory } from "@newsroom/shared/story-records";
import { and, asc, desc, eq } from "drizzle-orm";
import type { CmsImage } from "./connector.ts";

/** A story as the writer needs it, read at the moment of the write. */
export interface SourceStory {
  id: string;
  status: string;
  slug: string;
  version: number | null;
  title: string;
  summary: string | null;
  body: StoryBody;
  topics: string[];
  publishedAt: Date | null;
  canonicalUrl: string;
}

/** Where the writer reads stories and the bytes of their cleared images. */
export interface StorySource {
  story(organizationId: string, storyId: string): Promise<SourceStory | null>;
  /** A cleared image's largest variant; null when the asset is not cleared (or gone). */
  image(organizationId: string, assetId: string): Promise<CmsImage | null>;
}

export interface PublicAddresses {
  NEWSROOM_HOST: string;
  PUBLIC_BASE_URL: string;
}

/**
 * Reads the published story as the webhook payloads do (the shared story records over the
 * workspace's rows, scoped by organization), its current version's body, and a cleared asset's
 * largest variant. The canonical page is the organization's site's (its active hostname, else
 * `{NEWSROOM_HOST}/{site}`), else the house newsroom's.
 */
export function databaseStorySource(db: Db, addresses: PublicAddresses): StorySource {
  return {
    async story(organizationId, storyId) {
      const record = await readStory(db, organizationId, storyId);
      if (!record) return null;
      const [version] = await db
        .select({ body: storyVersions.body })
        .from(storyVersions)
        .innerJoin(stories, eq(stories.id, storyVersions.storyId))
        .where(
          and(
            eq(stories.organizationId, organizationId),
            eq(storyVersions.storyId, storyId),
            eq(storyVersions.version, stories.currentVersion),
          ),
        );
      return {
        id: record.id,
        status: record.status,
        slug: record.slug,
        version: record.version,
        title: record.title ?? record.slug,
        summary: record.summary,
        body: (version?.body ?? []) as StoryBody,
        topics: record.topics,
        publishedAt: record.published_at ? new Date(record.published_at) : null,
        canonicalUrl: `${await pageBase(db, addresses, organizationId)}/${encodeURIComponent(record.slug)}`,
      };
    },
    async image(organizationId, assetId) {
      const [row] = await db
        .select({
          name: assetVariants.name,
          contentType: assetVariants.contentType,
          data: assetVariants.data,
          alt: assets.alt,
        })
        .from(assetVariants)
        .innerJoin(assets, eq(assets.id, assetVariants.assetId))
        .where(
          and(
            eq(assets.organizationId, organizationId),
            eq(assets.id, assetId),
            eq(assets.cleared, true),
          ),
        )
        .orderBy(desc(assetVariants.width), asc(assetVariants.name))
        .limit(1);
      if (!row) return null;
      return {
        assetId,
        bytes: new Uint8Array(row.data),
        filename: row.name,
        contentType: row.contentType,
        alt: row.alt || null,
      };
    },
  };
}

/** Where the organization's story pages live. */
async function pageBase(db: Db, addresses: PublicAddresses, organizationId: string) {
  const [site] = await db
    .select({ slug: sites.slug, hostname: hostnames.hostname })
    .from(sites)
    .leftJoin(hostnames, and(eq(hostnames.siteId, sites.id), eq(hostnames.status, "active")))
    .where(and(eq(sites.organizationId, organizationId), eq(sites.enabled, true)))
    .orderBy(asc(sites.createdAt))
    .limit(1);
  if (site) return canonicalUrl(addresses.NEWSROOM_HOST, site.slug, site.hostname);
  return `${addresses.PUBLIC_BASE_URL.replace(/\/+$/, "")}/newsroom`;
}
