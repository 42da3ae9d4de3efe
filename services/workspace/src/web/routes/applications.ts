import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import {
  APPLICATIONS_PAGE_PATH,
  grantsOfPerson,
  type PersonGrant,
  revokeGrant,
} from "../../oauth/index.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { confirmPage } from "../layout.ts";
import { type AllowedApplication, applicationsPage } from "../pages/applications.ts";

/**
 * The applications the signed-in person allowed, in every organization, each revocable after a
 * confirmation: revoking ends the grant's whole token family. A grant is only ever the person's
 * own: anyone else's answers 404.
 */
export function applicationsWebRoutes(deps: WebDeps, kit: WebKit) {
  /**
   * The person's grants; a session single sign-on opened reaches its organization only, so it
   * lists and revokes that organization's grants (the others after an emailed code).
   */
  async function allowed(who: SignedInVisitor): Promise<AllowedApplication[]> {
    const bound = who.signedIn.session.ssoOrganizationId;
    const grants = (await grantsOfPerson(deps.db, who.signedIn.person.id)).filter(
      (grant) => bound === null || grant.organizationId === bound,
    );
    return grants.map((grant: PersonGrant) => ({
      id: grant.id,
      application: grant.clientName,
      organization: grant.organizationName,
      scope: grant.scope,
      allowedAt: grant.createdAt,
      lastUsedAt: grant.lastUsedAt,
    }));
  }

  async function grantOf(who: SignedInVisitor, id: string) {
    const grant = (await allowed(who)).find((row) => row.id === id);
    if (!grant) throw new ApiError("not_found", "No such application.");
    return grant;
  }

  return new Elysia()
    .get(APPLICATIONS_PAGE_PATH, async ({ request }) => {
      const who = await kit.signedIn(request);
      const ssoOnly = who.signedIn.session.ssoOrganizationId !== null;
      return kit.page(who, applicationsPage(who, await allowed(who), { ssoOnly }));
    })
    .get(`${APPLICATIONS_PAGE_PATH}/:id/revoke`, async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const grant = await grantOf(who, params.id);
      return kit.page(
        who,
        confirmPage(who, {
          title: `Revoke ${grant.application}?`,
          question: `${grant.application} may no longer act in your name in ${grant.organization}: its tokens stop working at once. To use it again, you would allow it again.`,
          action: `${APPLICATIONS_PAGE_PATH}/${grant.id}/revoke`,
          button: "Revoke access",
          back: APPLICATIONS_PAGE_PATH,
        }),
      );
    })
    .post(
      `${APPLICATIONS_PAGE_PATH}/:id/revoke`,
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const grant = await grantOf(who, params.id);
        if (form.text("confirm") !== "yes") {
          return kit.redirect(`${APPLICATIONS_PAGE_PATH}/${grant.id}/revoke`);
        }
        await revokeGrant(deps.db, who.signedIn.person.id, grant.id, deps.now());
        return kit.redirect(withDone(APPLICATIONS_PAGE_PATH, "application-revoked"));
      },
      { parse: "none" },
    );
}
