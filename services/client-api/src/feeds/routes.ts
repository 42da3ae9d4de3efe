import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import type { ClientApiDeps } from "../deps.ts";
import { renderJsonFeed } from "./json-feed.ts";
import { JSON_FEED_TYPE, RSS_TYPE } from "./model.ts";
import { renderRss } from "./rss.ts";
import { buildFeed } from "./service.ts";

/** The feed's own address: the request's, without its query (which may hold a key). */
function selfUrl(request: Request): string {
  const url = new URL(request.url);
  return `${url.origin}${url.pathname}`;
}

/**
 * GET /v1/feed.json and GET /v1/feed.xml (scope feed:read). The only routes that also take the
 * key as `?key=`, and only a key whose sole scope is feed:read.
 */
export function feedsRoutes(deps: ClientApiDeps) {
  return new Elysia({ name: "client-api:feeds" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, "feed:read", { allowQueryKey: true }),
    }))
    .get("/v1/feed.json", async ({ request, caller }) => {
      const feed = await buildFeed(
        { db: deps.db!, newsroomHost: deps.newsroomHost },
        caller,
        selfUrl(request),
      );
      return new Response(JSON.stringify(renderJsonFeed(feed)), {
        headers: { "content-type": JSON_FEED_TYPE },
      });
    })
    .get("/v1/feed.xml", async ({ request, caller }) => {
      const feed = await buildFeed(
        { db: deps.db!, newsroomHost: deps.newsroomHost },
        caller,
        selfUrl(request),
      );
      return new Response(renderRss(feed), { headers: { "content-type": RSS_TYPE } });
    });
}
