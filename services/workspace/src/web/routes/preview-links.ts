import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { personActor } from "../../audit.ts";
import {
  findPreviewLink,
  organizationOfPreviewLink,
  revokePreviewLink,
} from "../../preview-links/service.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import { linkStatus, previewLinkCreatedPage } from "../pages/preview-links.ts";
import { allowOwnScripts } from "../secret-once.ts";

/**
 * A preview link's pages (made on its story's page, `routes/stories.ts`): its address shown once
 * after creation, and its revocation after a confirmation. `story.decide`, as approving.
 */
export function previewLinksWebRoutes(deps: WebDeps, kit: WebKit) {
  /** The link and the person's access to its organization; another organization's is a 404. */
  async function linkAccess(who: SignedInVisitor, linkId: string) {
    const orgId = await organizationOfPreviewLink(deps.db, linkId);
    if (!orgId) throw new ApiError("not_found", "No such preview link.");
    const access = await kit.permit(who, orgId, "story.decide");
    const link = await findPreviewLink(deps.db, orgId, linkId);
    if (!link) throw new ApiError("not_found", "No such preview link.");
    return { access, link };
  }

  return new Elysia()
    .get("/app/preview-links/:id/created", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const { access, link } = await linkAccess(who, params.id);
      const session = who.signedIn.session.id;
      const url = kit.shownOnce.take(request, session, `preview-link:${link.id}`, deps.now());
      who.setCookies.push(kit.shownOnce.spent());
      return allowOwnScripts(kit.page(who, previewLinkCreatedPage(who, access, link, url)));
    })
    .get("/app/preview-links/:id/revoke", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const { link } = await linkAccess(who, params.id);
      const story = `/app/stories/${link.storyId}`;
      if (linkStatus(link, deps.now()) !== "active") return kit.redirect(story);
      return kit.page(
        who,
        confirmPage(who, {
          title: "Revoke this preview link?",
          question: `The link for ${link.label} stops working at once, for good: whoever has it gets "not found".`,
          action: `/app/preview-links/${link.id}/revoke`,
          button: "Revoke link",
          back: story,
        }),
      );
    })
    .post(
      "/app/preview-links/:id/revoke",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const { access, link } = await linkAccess(who, params.id);
        const story = `/app/stories/${link.storyId}`;
        if (form.text("confirm") !== "yes")
          return kit.redirect(`/app/preview-links/${link.id}/revoke`);
        await revokePreviewLink(
          deps.db,
          access.organization.id,
          link.id,
          personActor(who.signedIn.person.id),
        );
        return kit.redirect(withDone(story, "preview-link-revoked"));
      },
      { parse: "none" },
    );
}
