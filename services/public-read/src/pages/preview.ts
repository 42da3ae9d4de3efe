import { bodyBeforePublication } from "@newsroom/shared/asset-urls";
import type { Db } from "@newsroom/shared/db/index";
import { stories, storyVersions } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { isUuid } from "@newsroom/shared/ids";
import { and, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { ContentItemOut } from "../content/model.ts";
import { topicsOfStories } from "../content/store.ts";
import type { ReadDeps } from "../deps.ts";
import { houseNewsroom } from "../newsroom/service.ts";
import { siteBySlug } from "../sites/service.ts";
import type { Brand } from "./brand.ts";
import { itemPage } from "./item-page.ts";

/** What the workspace gets for a preview: the page, to serve as its own. */
export interface StoryPreviewOut {
  object: "story_preview";
  html: string;
}

async function versionOf(db: Db, storyId: string, version: number) {
  if (!isUuid(storyId)) return null;
  const [row] = await db
    .select({ story: stories, version: storyVersions })
    .from(stories)
    .innerJoin(storyVersions, eq(storyVersions.storyId, stories.id))
    .where(and(eq(stories.id, storyId), eq(storyVersions.version, version)));
  return row ?? null;
}

/**
 * A story's version as it will read on one of its organization's newsrooms (a hosted site by
 * `site`, else the house newsroom or the organization's own name), through the public item
 * template with a banner saying it is a preview. Uncleared images show, marked; nothing here is
 * cached or public: the route is internal (ADMIN_TOKEN), for the workspace's preview page.
 */
export function previewRoutes(
  deps: ReadDeps,
  brandOf: (opened: {
    newsroom: Awaited<ReturnType<typeof houseNewsroom>>;
    site: Awaited<ReturnType<typeof siteBySlug>>;
  }) => Promise<Brand | null>,
) {
  const { db, config } = deps;
  return new Elysia({ name: "public-read:preview" }).get(
    "/internal/v1/preview/stories/:id/versions/:version",
    async ({ params, query }): Promise<StoryPreviewOut> => {
      const found = await versionOf(db, params.id, params.version);
      if (!found) throw new ApiError("not_found", "No such story version.");
      const { story, version } = found;
      const orgId = story.organizationId;
      let site = null;
      if (query.site) {
        site = await siteBySlug(db, config.NEWSROOM_HOST, query.site);
        if (!site || site.organizationId !== orgId) {
          throw new ApiError("not_found", "No such site of the story's organization.");
        }
      }
      const house = await houseNewsroom(db, config);
      const newsroom = site?.newsroom ?? {
        ...house,
        organizationId: orgId,
        ownerId: orgId,
      };
      const brand = await brandOf({ newsroom, site });
      if (!brand) throw new ApiError("not_found", "No such newsroom.");
      const [body, topics] = await Promise.all([
        bodyBeforePublication(db, orgId, version.body),
        topicsOfStories(db, orgId, [story.id]),
      ]);
      const at = (story.publishedAt ?? new Date()).toISOString();
      const item: ContentItemOut = {
        object: "content_item",
        id: story.id,
        type: story.type,
        slug: story.slug,
        title: version.title,
        summary: version.summary,
        url: `${newsroom.itemBase}/${encodeURIComponent(story.slug)}`,
        external_url: story.externalUrl,
        featured: story.featured,
        topics: topics.map(({ slug, name }) => ({ slug, name })),
        image: null,
        published_at: at,
        updated_at: version.createdAt.toISOString(),
        body,
        assets: [],
        people: [],
        related: [],
      };
      const banner = `Preview of version ${version.version} (${story.status.replace(/_/g, " ")}): not published, readers cannot see this page.`;
      return { object: "story_preview", html: itemPage(brand, item, { preview: banner }).value };
    },
    {
      params: t.Object({
        id: t.String({ maxLength: 64 }),
        version: t.Integer({ minimum: 1 }),
      }),
      query: t.Object({ site: t.Optional(t.String({ pattern: "^[a-z0-9-]{1,64}$" })) }),
    },
  );
}
