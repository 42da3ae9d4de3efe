import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { announceSiteChange } from "../../announce.ts";
import { audit, personActor } from "../../audit.ts";
import type { OrgAccess } from "../../identity/members/access.ts";
import { findSiteInOrganization } from "../../resolve.ts";
import { DEFAULT_ACCENT, HostnameIn, SiteCreateIn } from "../../sites/model.ts";
import { addHostname, createSite } from "../../sites/service.ts";
import { hostnamesOfOrganization, sitesOfOrganization } from "../../sites/store.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { decodeForm } from "../form-decode.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { type SitesPageState, sitesPage } from "../pages/sites.ts";

/** An organization's hosted sites and their hostnames: list, add a site, add a hostname. */
export function sitesWebRoutes(deps: WebDeps, kit: WebKit) {
  const pathOf = (access: OrgAccess) =>
    `/app/orgs/${encodeURIComponent(access.organization.slug)}/sites`;

  async function gate(request: Request, org: string) {
    const who = await kit.signedIn(request);
    const access = await kit.permit(who, org, "sites.manage");
    return { who, access };
  }

  async function page(
    who: SignedInVisitor,
    access: OrgAccess,
    state: SitesPageState,
    status = 200,
  ) {
    const orgId = access.organization.id;
    const [sites, hostnames] = await Promise.all([
      sitesOfOrganization(deps.db, orgId),
      hostnamesOfOrganization(deps.db, orgId),
    ]);
    const data = { sites, hostnames, newsroomHost: deps.newsroomHost };
    return kit.page(who, sitesPage(who, access, data, state), status);
  }

  const post = { parse: "none" } as const;
  return new Elysia()
    .get("/app/orgs/:org/sites", async ({ request, params }) => {
      const { who, access } = await gate(request, params.org);
      return page(who, access, {});
    })
    .post(
      "/app/orgs/:org/sites",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        const decoded = decodeForm(form, SiteCreateIn, {
          wording: {
            site: "Use lower-case letters, digits and hyphens (at most 48).",
            name: "Enter the site's name.",
            publisher: "Enter the publisher's name.",
            accent: "Write a hex colour such as #1a73e8.",
          },
          prepare: (given) => {
            given.site = String(given.site ?? "").toLowerCase();
          },
        });
        const { given } = decoded;
        const values = {
          site: String(given.site ?? ""),
          name: String(given.name ?? ""),
          publisher: String(given.publisher ?? ""),
          accent: String(given.accent ?? DEFAULT_ACCENT),
        };
        const enabled = given.enabled === true;
        const live = given.live === true;
        const errors: Record<string, string> = decoded.ok ? {} : decoded.errors;
        if (Object.keys(errors).length === 0) {
          try {
            const row = await deps.db.transaction(async (tx) => {
              const created = await createSite(tx, access.organization.id, {
                ...values,
                enabled,
                live,
              });
              await audit(tx, created.organizationId, "site.created", created.id, actorOf(who));
              return created;
            });
            await announceSiteChange(deps.bus, row.organizationId, row.slug);
            return kit.redirect(withDone(pathOf(access), "site-added"));
          } catch (error) {
            if (!(error instanceof ApiError && error.code === "conflict")) throw error;
            errors.site = "This site slug is taken: choose another.";
          }
        }
        const status = errors.site?.includes("taken") ? 409 : 422;
        return page(who, access, { site: { values, enabled, live, errors } }, status);
      },
      post,
    )
    .post(
      "/app/orgs/:org/hostnames",
      async ({ request, params }) => {
        const { who, access } = await gate(request, params.org);
        const form = await kit.form(request, who);
        const siteSlug = form.text("site", 48);
        const decoded = decodeForm(form, HostnameIn, {
          wording: { hostname: "Write a hostname such as news.example.com." },
          prepare: (given) => {
            given.hostname = String(given.hostname ?? "").toLowerCase();
          },
        });
        const hostname = String(decoded.given.hostname);
        const errors: Record<string, string> = decoded.ok ? {} : decoded.errors;
        // Another organization's site answers like a missing one.
        const site = await findSiteInOrganization(deps.db, access.organization.id, siteSlug).catch(
          () => null,
        );
        if (!site) {
          errors.site = "Choose one of this organization's sites.";
        }
        let status = 422;
        if (site && Object.keys(errors).length === 0) {
          try {
            await deps.db.transaction(async (tx) => {
              const row = await addHostname(tx, access.organization.id, site.id, hostname);
              const action = `hostname.added:${row.hostname}`;
              await audit(tx, row.organizationId, action, row.id, actorOf(who));
            });
            return kit.redirect(withDone(pathOf(access), "hostname-added"));
          } catch (error) {
            if (!(error instanceof ApiError && error.code === "conflict")) throw error;
            errors.hostname = "This hostname is registered already.";
            status = 409;
          }
        }
        return page(who, access, { hostname: { site: siteSlug, hostname, errors } }, status);
      },
      post,
    );
}

const actorOf = (who: SignedInVisitor) => personActor(who.signedIn.person.id);
