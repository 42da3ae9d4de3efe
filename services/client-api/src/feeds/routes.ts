import { pathOf } from "@newsroom/shared/http";
import { Elysia } from "elysia";
import { requireKey } from "../auth/guard.ts";
import { answerKey, cachedBody } from "../caching/answers.ts";
import { jsonFeedOperation, rssFeedOperation } from "../contract.ts";
import type { ClientApiDeps } from "../deps.ts";
import { renderJsonFeed } from "./json-feed.ts";
import { JSON_FEED_TYPE, RSS_TYPE } from "./model.ts";
import { renderRss } from "./rss.ts";
import { buildFeed } from "./service.ts";

const HOST = /^[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](?::[0-9]{1,5})?$/;

/**
 * The feed's own address, without the query (which may hold a key). Behind the gateway in
 * distributed mode the public host and scheme arrive as `X-Forwarded-Host` and
 * `X-Forwarded-Proto`; a value of another shape is ignored.
 */
export function selfUrl(request: Request): string {
  const own = URL.parse(request.url);
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  const origin =
    host && HOST.test(host)
      ? `${proto === "http" || proto === "https" ? proto : (own?.protocol.slice(0, -1) ?? "http")}://${host}`
      : (own?.origin ?? "http://localhost");
  return `${origin}${pathOf(request.url)}`;
}

/**
 * GET /v1/feed.json and GET /v1/feed.xml (scope feed:read). The only routes that also take the
 * key as `?key=`, and only a key whose sole scope is feed:read.
 */
export function feedsRoutes(deps: ClientApiDeps) {
  const feedBody = (
    format: "json" | "xml",
    caller: Parameters<typeof buildFeed>[1],
    request: Request,
  ) => {
    const feedUrl = selfUrl(request);
    return cachedBody(
      deps.cache,
      caller.organizationId,
      answerKey(`feed.${format}`, caller.organizationId, feedUrl),
      async () => {
        const feed = await buildFeed(
          { db: deps.db!, newsroomHost: deps.newsroomHost },
          caller,
          feedUrl,
        );
        return format === "json" ? JSON.stringify(renderJsonFeed(feed)) : renderRss(feed);
      },
    );
  };
  return new Elysia({ name: "client-api:feeds" })
    .derive(async ({ request }) => ({
      caller: await requireKey(deps, request, "feed:read", { allowQueryKey: true }),
    }))
    .get(
      "/v1/feed.json",
      async ({ request, caller }) =>
        new Response(await feedBody("json", caller, request), {
          headers: { "content-type": JSON_FEED_TYPE },
        }),
      { detail: jsonFeedOperation },
    )
    .get(
      "/v1/feed.xml",
      async ({ request, caller }) =>
        new Response(await feedBody("xml", caller, request), {
          headers: { "content-type": RSS_TYPE },
        }),
      { detail: rssFeedOperation },
    );
}
