import { organizations, STORY_STATUSES, type StoryStatus } from "@newsroom/shared/db/schema";
import { ApiError } from "@newsroom/shared/errors";
import { asc } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { membershipsOfPerson } from "../../identity/members/store.ts";
import { OrganizationCreateIn } from "../../organizations/model.ts";
import { createOrganization } from "../../organizations/service.ts";
import {
  countStoriesByStatus,
  findStoriesPage,
  listStories,
  type StoryFilter,
} from "../../stories/queries.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { decodeForm } from "../form-decode.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import {
  approvalsPage,
  homePage,
  type OrgSummary,
  overviewPage,
  storiesPage,
} from "../pages/organizations.ts";

const STORIES_PAGE_SIZE = 50;

/** What the page's form gives of the internal API's organization: its name and slug. */
const OrganizationFormIn = t.Pick(OrganizationCreateIn, ["name", "slug"]);

/** The organizations pages: the home list, one organization's overview, stories and queue. */
export function organizationsWebRoutes(deps: WebDeps, kit: WebKit) {
  /**
   * Staff see every organization with their house role; members see theirs. A session single
   * sign-on opened shows its organization only (the others need an emailed code first).
   */
  async function orgsOf(
    who: SignedInVisitor,
  ): Promise<{ orgs: OrgSummary[]; staff: boolean; ssoOnly?: boolean }> {
    const { person, session } = who.signedIn;
    const mine = await membershipsOfPerson(deps.db, person.id);
    if (session.ssoOrganizationId) {
      const orgs = mine.filter((org) => org.organizationId === session.ssoOrganizationId);
      return { orgs, staff: false, ssoOnly: true };
    }
    const house = await kit.staffRole(who);
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

  const home = async (who: SignedInVisitor) => kit.page(who, homePage(who, await orgsOf(who)));

  return new Elysia()
    .get("/app", async ({ request }) => home(await kit.signedIn(request)))
    .get("/app/", async ({ request }) => home(await kit.signedIn(request)))
    .post(
      "/app/orgs",
      async ({ request }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        if (!(await kit.staffRole(who))) {
          throw new ApiError("forbidden", "Only staff create organizations.");
        }
        const decoded = decodeForm(form, OrganizationFormIn, {
          wording: { name: "Enter a name.", slug: "Use lower-case letters, digits and hyphens." },
          prepare: (given) => {
            given.slug = String(given.slug ?? "").toLowerCase();
          },
        });
        const name = String(decoded.given.name ?? "");
        const slug = String(decoded.given.slug);
        const errors: Record<string, string> = decoded.ok ? {} : decoded.errors;
        if (decoded.ok) {
          try {
            await createOrganization(deps.db, decoded.value);
            return kit.redirect(withDone(`/app/orgs/${slug}`, "org-created"));
          } catch (error) {
            if (!(error instanceof ApiError && error.code === "conflict")) throw error;
            errors.slug = "An organization with this slug exists.";
          }
        }
        const { orgs } = await orgsOf(who);
        const page = homePage(who, { orgs, staff: true, form: { name, slug, errors } });
        return kit.page(who, page, 422);
      },
      { parse: "none" },
    )
    .get("/app/orgs/:org", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "view");
      const counts = await countStoriesByStatus(deps.db, access.organization.id);
      return kit.page(
        who,
        overviewPage(who, access, counts, access.organization.apiApprovalsEnabled),
      );
    })
    .get("/app/orgs/:org/stories", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "view");
      const query = new URL(request.url).searchParams;
      const status = query.get("status") ?? "";
      const filter: StoryFilter = {
        status: STORY_STATUSES.includes(status as StoryStatus) ? (status as StoryStatus) : null,
        text: (query.get("q") ?? "").trim().slice(0, 200),
      };
      const page = Math.min(Math.max(Number.parseInt(query.get("page") ?? "1", 10) || 1, 1), 1000);
      const { items, more } = await findStoriesPage(deps.db, access.organization.id, filter, {
        offset: (page - 1) * STORIES_PAGE_SIZE,
        size: STORIES_PAGE_SIZE,
      });
      return kit.page(who, storiesPage(who, access, { items, filter, page, more }));
    })
    .get("/app/orgs/:org/approvals", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "view");
      const items = await listStories(deps.db, access.organization.id, ["review_required"]);
      return kit.page(who, approvalsPage(who, access, items));
    });
}
