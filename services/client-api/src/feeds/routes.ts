import { withCharset } from "@newsroom/shared/content-types";
import { renderJsonFeed } from "@newsroom/shared/feed-formats/json-feed";
import { JSON_FEED_TYPE, RSS_TYPE } from "@newsroom/shared/feed-formats/model";
import { renderRss } from "@newsroom/shared/feed-formats/rss";
import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import { answerKey, cachedBody } from "../caching/answers.ts";
import { jsonFeedOperation, rssFeedOperation } from "../contract.ts";
import type { ClientApiDeps } from "../deps.ts";
import { feedResponse, packFeed, unpackFeed } from "./conditional.ts";
import { buildFeed } from "./service.ts";

/**
 * GET /v1/feed.json and GET /v1/feed.xml (scope feed:read). The only routes that also take the
 * key as `?key=`, and only a key whose sole scope is feed:read.
 */
export function feedsRoutes(deps: ClientApiDeps) {
  // The feed's own address comes from configuration only: request headers (Host,
  // X-Forwarded-Host) are the client's to choose and must not reach a feed or its cache key.
  const base = deps.publicBaseUrl.replace(/\/+$/, "");
  const rendered = async (format: "json" | "xml", caller: Parameters<typeof buildFeed>[1]) => {
    const feedUrl = `${base}/v1/feed.${format}`;
    const packed = await cachedBody(deps.cache, answerKey(`feed.${format}`, caller), async () => {
      const { feed, lastModified } = await buildFeed(
        { db: deps.db!, newsroomHost: deps.newsroomHost },
        caller,
        feedUrl,
      );
      const body = format === "json" ? JSON.stringify(renderJsonFeed(feed)) : renderRss(feed);
      return packFeed({ body, lastModified: lastModified?.toUTCString() ?? null });
    });
    return unpackFeed(packed);
  };
  return new Elysia({ name: "client-api:feeds" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, "feed:read", { allowQueryKey: true }),
    }))
    .get(
      "/v1/feed.json",
      async ({ caller, request }) =>
        feedResponse(
          request,
          caller.organizationId,
          await rendered("json", caller),
          withCharset(JSON_FEED_TYPE),
        ),
      { detail: jsonFeedOperation },
    )
    .get(
      "/v1/feed.xml",
      async ({ caller, request }) =>
        feedResponse(
          request,
          caller.organizationId,
          await rendered("xml", caller),
          withCharset(RSS_TYPE),
        ),
      { detail: rssFeedOperation },
    );
}
