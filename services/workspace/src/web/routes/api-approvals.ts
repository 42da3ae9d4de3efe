import { Elysia } from "elysia";
import { audit, personActor } from "../../audit.ts";
import { updateOrganization } from "../../organizations/service.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { requireFreshSignIn } from "../fresh-sign-in.ts";
import type { WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";

/**
 * The owners' switch of approvals through the API, shown on the organization's overview: each
 * way asks first, then writes `api_approvals_enabled` through the same function as the internal
 * API's PATCH, audited with the person.
 */
export function apiApprovalsWebRoutes(deps: WebDeps, kit: WebKit) {
  return new Elysia().post(
    "/app/orgs/:org/api-approvals",
    async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const form = await kit.form(request, who);
      const access = await kit.permit(who, params.org, "api_approvals.switch");
      const overview = `/app/orgs/${encodeURIComponent(access.organization.slug)}`;
      const enable = form.text("enabled") === "true";
      if (form.text("confirm") !== "yes") {
        const page = confirmPage(who, {
          title: enable
            ? "Turn approvals through the API on?"
            : "Turn approvals through the API off?",
          question: enable
            ? `Applications that members of ${access.organization.name} allow will be able to approve and reject its stories in their name, each within that member's own role. Members may take their permission back at any time.`
            : `No application will be able to approve or reject stories of ${access.organization.name}, from the next request on. What members allowed stays, and works again if this is turned back on.`,
          action: `${overview}/api-approvals`,
          button: enable ? "Turn on" : "Turn off",
          back: overview,
          fields: { enabled: enable ? "true" : "false" },
        });
        return kit.page(who, page);
      }
      requireFreshSignIn(who, deps.now(), overview);
      const orgId = access.organization.id;
      await deps.db.transaction(async (tx) => {
        await updateOrganization(tx, orgId, { api_approvals_enabled: enable }, deps.serviceEnv);
        await audit(
          tx,
          orgId,
          enable ? "api_approvals.enabled" : "api_approvals.disabled",
          null,
          personActor(who.signedIn.person.id),
        );
      });
      return kit.redirect(withDone(overview, enable ? "api-approvals-on" : "api-approvals-off"));
    },
    { parse: "none" },
  );
}
