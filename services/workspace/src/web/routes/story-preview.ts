import { ApiError } from "@newsroom/shared/errors";
import { Elysia, t } from "elysia";
import { organizationOfStory } from "../../stories/queries.ts";
import type { WebDeps } from "../deps.ts";
import type { WebKit } from "../kit.ts";

/** What public-read's internal preview route answers. */
interface StoryPreviewOut {
  object: "story_preview";
  html: string;
}

/**
 * The preview of any version of a story on one of its organization's newsrooms: the public page
 * template, rendered by public-read (`deps.calls.publicRead`), served here to members only, never
 * cached or indexed. Its images load from wherever they are (an uncleared upload from this
 * service's members-only route); it runs no script.
 */
export function storyPreviewWebRoutes(deps: WebDeps, kit: WebKit) {
  return new Elysia().get(
    "/app/stories/:id/versions/:version/preview",
    async ({ request, params, query }) => {
      const who = await kit.signedIn(request);
      const orgId = await organizationOfStory(deps.db, params.id);
      if (!orgId) throw new ApiError("not_found", "No such story.");
      await kit.permit(who, orgId, "view");
      const site = query.site ? `?site=${encodeURIComponent(query.site)}` : "";
      const preview = await deps.calls.publicRead.call<StoryPreviewOut>(
        "GET",
        `/internal/v1/preview/stories/${params.id}/versions/${params.version}${site}`,
      );
      return new Response(`${preview.html}`, {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "private, no-store",
          "x-robots-tag": "noindex, nofollow",
          "content-security-policy":
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: http: data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
          "referrer-policy": "no-referrer",
          "x-content-type-options": "nosniff",
          "x-frame-options": "DENY",
        },
      });
    },
    {
      params: t.Object({ id: t.String({ maxLength: 64 }), version: t.Integer({ minimum: 1 }) }),
      query: t.Object({ site: t.Optional(t.String({ pattern: "^[a-z0-9-]{1,64}$" })) }),
    },
  );
}
