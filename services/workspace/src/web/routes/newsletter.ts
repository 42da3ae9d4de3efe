import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { announceSiteChange } from "../../announce.ts";
import { audit, personActor } from "../../audit.ts";
import type { OrgAccess } from "../../identity/members/access.ts";
import { MAX_NEWSLETTER_ORIGINS } from "../../organizations/model.ts";
import { lockOrganization, updateOrganization } from "../../organizations/service.ts";
import type { WebDeps } from "../deps.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import { parseWebsiteOrigin } from "../newsletter-origin.ts";
import { newsletterPage } from "../pages/newsletter.ts";

/** The organization newsletter's settings: on or off, and the website origins allowed to post. */
export function newsletterWebRoutes(deps: WebDeps, kit: WebKit) {
  const pathOf = (access: OrgAccess) =>
    `/app/orgs/${encodeURIComponent(access.organization.slug)}/newsletter`;

  async function gate(request: Request, org: string) {
    const who = await kit.signedIn(request);
    const access = await kit.permit(who, org, "newsletter.manage");
    return { who, access };
  }

  /**
   * Changes the settings from their current, locked values; `change` answers the new values and
   * the audit action, or an error message for the origin field (nothing changes then).
   */
  async function change(
    who: SignedInVisitor,
    access: OrgAccess,
    edit: (current: {
      enabled: boolean;
      origins: string[];
    }) => { enabled?: boolean; origins?: string[]; action: string } | { error: string },
  ): Promise<{ error: string } | null> {
    const orgId = access.organization.id;
    const outcome = await deps.db.transaction(async (tx) => {
      const row = await lockOrganization(tx, orgId);
      const next = edit({ enabled: row.newsletterEnabled, origins: row.newsletterOrigins });
      if ("error" in next) return next;
      await updateOrganization(
        tx,
        orgId,
        { newsletter_enabled: next.enabled, newsletter_origins: next.origins },
        deps.serviceEnv,
      );
      await audit(tx, orgId, next.action, null, personActor(who.signedIn.person.id));
      return null;
    });
    if (outcome) return outcome;
    await announceSiteChange(deps.bus, orgId, null);
    return null;
  }

  const post = { parse: "none" } as const;
  return new Elysia()
    .get("/app/orgs/:org/newsletter", async ({ request, params, query }) => {
      const { who, access } = await gate(request, params.org);
      const done = typeof query.done === "string" ? query.done : undefined;
      return kit.page(who, newsletterPage(who, access, deps, { done }));
    })
    .post(
      "/app/orgs/:org/newsletter/enable",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        await kit.form(request, who);
        await change(who, access, () => ({ enabled: true, action: "newsletter.enabled" }));
        return kit.redirect(`${pathOf(access)}?done=enabled`);
      },
      post,
    )
    .post(
      "/app/orgs/:org/newsletter/disable",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        if (form.text("confirm") !== "yes") {
          const page = confirmPage(who, {
            title: "Turn the newsletter off",
            question: `The subscribe forms of ${access.organization.name} will answer that the newsletter is closed. Confirmed subscribers stay on the list.`,
            action: `${pathOf(access)}/disable`,
            button: "Turn the newsletter off",
            back: pathOf(access),
          });
          return kit.page(who, page);
        }
        await change(who, access, () => ({ enabled: false, action: "newsletter.disabled" }));
        return kit.redirect(`${pathOf(access)}?done=disabled`);
      },
      post,
    )
    .post(
      "/app/orgs/:org/newsletter/origins",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        const typed = form.text("origin", 300);
        const parsed = parseWebsiteOrigin(typed, deps.serviceEnv);
        const failed =
          "error" in parsed
            ? parsed
            : await change(who, access, ({ origins }) => {
                if (origins.includes(parsed.origin))
                  return { error: "This origin is listed already." };
                if (origins.length >= MAX_NEWSLETTER_ORIGINS) {
                  return { error: `At most ${MAX_NEWSLETTER_ORIGINS} origins: remove one first.` };
                }
                return {
                  origins: [...origins, parsed.origin],
                  action: `newsletter.origin_added:${parsed.origin}`,
                };
              });
        if (failed) {
          const state = { origin: typed, originError: failed.error };
          return kit.page(who, newsletterPage(who, access, deps, state), 422);
        }
        return kit.redirect(`${pathOf(access)}?done=origin-added`);
      },
      post,
    )
    .post(
      "/app/orgs/:org/newsletter/origins/remove",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        const origin = form.text("origin", 300);
        if (!access.organization.newsletterOrigins.includes(origin)) {
          throw new ApiError("not_found", "This origin is not listed.");
        }
        if (form.text("confirm") !== "yes") {
          const page = confirmPage(who, {
            title: "Remove a website origin",
            question: `Subscribe forms on ${origin} will be refused from now on.`,
            action: `${pathOf(access)}/origins/remove`,
            button: `Remove ${origin}`,
            back: pathOf(access),
            fields: { origin },
          });
          return kit.page(who, page);
        }
        await change(who, access, ({ origins }) => ({
          origins: origins.filter((listed) => listed !== origin),
          action: `newsletter.origin_removed:${origin}`,
        }));
        return kit.redirect(`${pathOf(access)}?done=origin-removed`);
      },
      post,
    );
}
