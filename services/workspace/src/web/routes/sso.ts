import { ApiError } from "@newsroom/shared/errors";
import { clientIpOf } from "@newsroom/shared/http/request-context";
import { Elysia } from "elysia";
import { startSession } from "../../identity/sessions/service.ts";
import { domainStatuses, verifySsoDomain } from "../../identity/sso/domains.ts";
import { parseDomainList } from "../../identity/sso/model.ts";
import { configureSso, createSsoService, SSO_ATTEMPT_TTL_MS } from "../../identity/sso/service.ts";
import { findSsoConfig, type SsoConfigRow } from "../../identity/sso/store.ts";
import type { OrganizationRow } from "../../resolve.ts";
import { appCookie, readCookies } from "../cookies.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { requireFreshSignIn } from "../fresh-sign-in.ts";
import type { SignedInVisitor, Visitor, WebKit } from "../kit.ts";
import type { OrgNav } from "../layout.ts";
import { errorPage } from "../pages/error.ts";
import { navOf } from "../pages/organizations.ts";
import { signInPage } from "../pages/sign-in.ts";
import {
  type DomainProblem,
  type SsoSettingsForm,
  ssoAlreadySignedInPage,
  ssoContinuePage,
  ssoSettingsPage,
  ssoToProviderPage,
} from "../pages/sso.ts";

/** The browser's half of a sign-in under way at the provider. */
const SSO_COOKIE = "nr_sso";

const formOf = (row: SsoConfigRow | null): SsoSettingsForm => ({
  issuer: row?.issuer ?? "",
  clientId: row?.clientId ?? "",
  allowedDomains: row?.allowedDomains.join(", ") ?? "",
  enabled: row?.enabled ?? false,
});

/** Single sign-on: its settings (house owners only), and signing in through the organization's provider. */
export function ssoWebRoutes(deps: WebDeps, kit: WebKit) {
  const sso = createSsoService(deps);
  const secure = deps.appUrl.startsWith("https:");
  const ssoCookie = (value: string, maxAge: number) =>
    appCookie(SSO_COOKIE, value, { maxAge, secure });

  /**
   * Who may sign people in is decided by the owners of the house organization alone: an admin
   * could otherwise point an organization (the house one too) at a provider of their own.
   * Outsiders get the 404 of a missing organization; anyone else, a 403.
   */
  async function houseOwnersOnly(who: SignedInVisitor, org: string) {
    const access = await kit.permit(who, org, "view");
    if ((await kit.staffRole(who)) !== "owner") {
      throw new ApiError(
        "forbidden",
        "Only owners of the house organization set up single sign-on.",
      );
    }
    // Also for an owner of the organization who is staff (their access then reads as owner).
    const nav: OrgNav = { ...navOf(access, "sso"), staff: true, role: "owner" };
    return { organization: access.organization, nav };
  }

  const settingsPath = (organization: OrganizationRow) =>
    `/app/orgs/${encodeURIComponent(organization.slug)}/sso`;

  async function settingsPage(
    who: SignedInVisitor,
    organization: OrganizationRow,
    nav: OrgNav,
    options: {
      form?: SsoSettingsForm;
      verified?: string;
      domainProblem?: DomainProblem;
    },
  ) {
    const stored = await findSsoConfig(deps.db, organization.id);
    const domains = await domainStatuses(
      deps.db,
      deps.secretsKey,
      organization.id,
      stored?.allowedDomains ?? [],
    );
    return ssoSettingsPage(who, nav, {
      stored,
      form: options.form ?? formOf(stored),
      domains,
      verified: options.verified,
      domainProblem: options.domainProblem,
    });
  }

  /**
   * A sign-in started by a form post of this app (its CSRF token checked): the provider's page
   * next, with the cookie that ties the callback to this browser. A signed-in browser is told
   * to sign out first.
   */
  async function startSignIn(who: Visitor, orgIdOrSlug: string, request: Request) {
    if (who.signedIn) return kit.page(who, ssoAlreadySignedInPage(who), 409);
    const started = await sso.start(orgIdOrSlug, clientIpOf(request));
    if (!started.ok) {
      return kit.page(who, errorPage(who, started.status, started.message), started.status);
    }
    who.setCookies.push(ssoCookie(started.token, SSO_ATTEMPT_TTL_MS / 1000));
    return kit.page(who, ssoToProviderPage(who, started.location));
  }

  return new Elysia()
    .get("/app/orgs/:org/sso", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const { organization, nav } = await houseOwnersOnly(who, params.org);
      const query = new URL(request.url).searchParams;
      const page = await settingsPage(who, organization, nav, {
        verified: query.get("verified") ?? undefined,
      });
      return kit.page(who, page);
    })
    .post(
      "/app/orgs/:org/sso",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const { organization, nav } = await houseOwnersOnly(who, params.org);
        // Who may sign in is as sensitive as a key: the same recent sign-in is needed.
        requireFreshSignIn(who, deps.now(), settingsPath(organization));
        const input = {
          issuer: form.text("issuer", 500),
          clientId: form.text("client_id", 255),
          clientSecret: form.text("client_secret", 500),
          allowedDomains: parseDomainList(form.text("allowed_domains", 5_000)),
          enabled: form.text("enabled") === "yes",
        };
        const result = await configureSso(deps.db, deps.secretsKey, organization.id, input, {
          actor: `person:${who.signedIn.person.id}`,
          allowLoopbackHttp: deps.appUrl.startsWith("http:"),
          now: deps.now(),
        });
        if (result.ok) return kit.redirect(withDone(settingsPath(organization), "sso-saved"));
        const page = await settingsPage(who, organization, nav, {
          form: {
            ...input,
            allowedDomains: form.text("allowed_domains", 5_000),
            problems: result.problems,
          },
        });
        return kit.page(who, page, 422);
      },
      { parse: "none" },
    )
    .post(
      "/app/orgs/:org/sso/domains/verify",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const { organization, nav } = await houseOwnersOnly(who, params.org);
        requireFreshSignIn(who, deps.now(), settingsPath(organization));
        const domain = form.text("domain", 253).toLowerCase();
        const outcome = await verifySsoDomain(deps.db, deps, organization.id, domain, {
          actor: `person:${who.signedIn.person.id}`,
          now: deps.now(),
        });
        if (outcome.ok) {
          return kit.redirect(
            `${settingsPath(organization)}?verified=${encodeURIComponent(domain)}`,
          );
        }
        const page = await settingsPage(who, organization, nav, {
          domainProblem: { domain, message: outcome.message },
        });
        return kit.page(who, page, 422);
      },
      { parse: "none" },
    )
    .post(
      "/app/sso",
      async ({ request }) => {
        const who = await kit.visitor(request);
        const form = await kit.form(request, who);
        const value = form.text("organization", 254);
        // Straight on to the provider: the answer never names the organization an address
        // belongs to, and every miss reads the same.
        const slug = await sso.organizationFor(value);
        if (slug) return startSignIn(who, slug, request);
        const error =
          "No single sign-on is set up for this organization or address. Check it, or sign in with an emailed code.";
        return kit.page(who, signInPage(who, { sso: { value, error } }), 400);
      },
      { parse: "none" },
    )
    .get("/app/sso/:org/start", async ({ request, params }) => {
      const who = await kit.visitor(request);
      return kit.page(who, ssoContinuePage(who, params.org));
    })
    .post(
      "/app/sso/:org/start",
      async ({ request, params }) => {
        const who = await kit.visitor(request);
        await kit.form(request, who);
        return startSignIn(who, params.org, request);
      },
      { parse: "none" },
    )
    .get("/app/sso/callback", async ({ request }) => {
      const who = await kit.visitor(request);
      const token = readCookies(request.headers.get("cookie")).get(SSO_COOKIE);
      who.setCookies.push(ssoCookie("", 0));
      if (who.signedIn) {
        await sso.discard(token);
        return kit.page(who, ssoAlreadySignedInPage(who), 409);
      }
      const finished = await sso.finish(token, new URL(request.url).search, clientIpOf(request));
      if (!finished.ok) {
        return kit.page(who, errorPage(who, finished.status, finished.message), finished.status);
      }
      // The session reaches the organization whose provider vouched for the person, only.
      const { token: session } = await startSession(deps.db, finished.person.id, deps.now(), {
        ssoOrganizationId: finished.organization.id,
      });
      return kit.redirect("/app/", [...who.setCookies, kit.sessionCookie(session)]);
    });
}
