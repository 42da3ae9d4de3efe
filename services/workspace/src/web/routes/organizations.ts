import { organizations } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { asc } from "drizzle-orm";
import { Elysia } from "elysia";
import { staffRole } from "../../members/access.ts";
import { membershipsOfPerson, type PersonRow } from "../../members/store.ts";
import { createOrganization } from "../../organizations/service.ts";
import { countStoriesByStatus, listStories } from "../../stories/queries.ts";
import type { WebDeps } from "../deps.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import {
  approvalsPage,
  homePage,
  type OrgSummary,
  overviewPage,
  storiesPage,
} from "../pages/organizations.ts";

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** The organizations pages: the home list, one organization's overview, stories and queue. */
export function organizationsWebRoutes(deps: WebDeps, kit: WebKit) {
  const context = { db: deps.db, houseOrg: deps.houseOrg };

  /** Staff see every organization with their house role; members see theirs. */
  async function orgsOf(person: PersonRow): Promise<{ orgs: OrgSummary[]; staff: boolean }> {
    const mine = await membershipsOfPerson(deps.db, person.id);
    const house = await staffRole(context, person);
    if (!house) return { orgs: mine, staff: false };
    const roles = new Map(mine.map((org) => [org.organizationId, org.role]));
    const all = await deps.db.select().from(organizations).orderBy(asc(organizations.name));
    const orgs = all.map((org) => ({
      slug: org.slug,
      name: org.name,
      role: roles.get(org.id) === "owner" ? ("owner" as const) : house,
    }));
    return { orgs, staff: true };
  }

  const home = async (who: SignedInVisitor) =>
    kit.page(who, homePage(who, await orgsOf(who.signedIn.person)));

  return new Elysia()
    .get("/app", async ({ request }) => home(await kit.signedIn(request)))
    .get("/app/", async ({ request }) => home(await kit.signedIn(request)))
    .post(
      "/app/orgs",
      async ({ request }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        if (!(await staffRole(context, who.signedIn.person))) {
          throw new ApiError("forbidden", "Only staff create organizations.");
        }
        const name = form.text("name", 200);
        const slug = form.text("slug", 64).toLowerCase();
        const errors: Record<string, string> = {};
        if (!name) errors.name = "Enter a name.";
        if (!SLUG.test(slug)) errors.slug = "Use lower-case letters, digits and hyphens.";
        if (Object.keys(errors).length === 0) {
          try {
            await createOrganization(deps.db, { slug, name });
            return kit.redirect(`/app/orgs/${slug}`);
          } catch (error) {
            if (!(error instanceof ApiError && error.code === "conflict")) throw error;
            errors.slug = "An organization with this slug exists.";
          }
        }
        const { orgs } = await orgsOf(who.signedIn.person);
        const page = homePage(who, { orgs, staff: true, form: { name, slug, errors } });
        return kit.page(who, page, 422);
      },
      { parse: "none" },
    )
    .get("/app/orgs/:org", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "view");
      const counts = await countStoriesByStatus(deps.db, access.organization.id);
      return kit.page(who, overviewPage(who, access, counts));
    })
    .get("/app/orgs/:org/stories", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "view");
      const items = await listStories(deps.db, access.organization.id);
      return kit.page(who, storiesPage(who, access, items));
    })
    .get("/app/orgs/:org/approvals", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "view");
      const items = await listStories(deps.db, access.organization.id, ["review_required"]);
      return kit.page(who, approvalsPage(who, access, items));
    });
}
