import { ApiError } from "@newsroom/shared/errors";
import { clientIpOf } from "@newsroom/shared/http/request-context";
import { Elysia } from "elysia";
import { staffRole } from "../../members/access.ts";
import { endSession, startSession } from "../../sessions/service.ts";
import { parseDomainList } from "../../sso/model.ts";
import { configureSso, createSsoService, SSO_ATTEMPT_TTL_MS } from "../../sso/service.ts";
import { findSsoConfig, type SsoConfigRow } from "../../sso/store.ts";
import { appCookie, readCookies } from "../cookies.ts";
import type { WebDeps } from "../deps.ts";
import { requireFreshSignIn } from "../fresh-sign-in.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import type { OrgNav } from "../layout.ts";
import { errorPage } from "../pages/error.ts";
import { navOf } from "../pages/organizations.ts";
import { signInPage } from "../pages/sign-in.ts";
import { type SsoSettingsForm, ssoContinuePage, ssoSettingsPage } from "../pages/sso.ts";

/** The browser's half of a sign-in under way at the provider. */
const SSO_COOKIE = "nr_sso";

const formOf = (row: SsoConfigRow | null): SsoSettingsForm => ({
  issuer: row?.issuer ?? "",
  clientId: row?.clientId ?? "",
  allowedDomains: row?.allowedDomains.join(", ") ?? "",
  enabled: row?.enabled ?? false,
});

/** Single sign-on: its settings (staff only), and signing in through the organization's provider. */
export function ssoWebRoutes(deps: WebDeps, kit: WebKit) {
  const context = { db: deps.db, houseOrg: deps.houseOrg };
  const sso = createSsoService(deps);
  const secure = deps.appUrl.startsWith("https:");
  const ssoCookie = (value: string, maxAge: number) =>
    appCookie(SSO_COOKIE, value, { maxAge, secure });

  /** Outsiders get the 404 of a missing organization; members who are not staff, a 403. */
  async function staffOnly(who: SignedInVisitor, org: string) {
    const access = await kit.permit(who, org, "view");
    if (!(await staffRole(context, who.signedIn.person))) {
      throw new ApiError("forbidden", "Only staff set up single sign-on.");
    }
    // Also for an owner of the organization who is staff (their access then reads as owner).
    const nav: OrgNav = { ...navOf(access, "sso"), staff: true };
    return { organization: access.organization, nav };
  }

  return new Elysia()
    .get("/app/orgs/:org/sso", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const { organization, nav } = await staffOnly(who, params.org);
      const stored = await findSsoConfig(deps.db, organization.id);
      const saved = new URL(request.url).searchParams.get("saved") === "1";
      return kit.page(who, ssoSettingsPage(who, nav, { stored, form: formOf(stored), saved }));
    })
    .post(
      "/app/orgs/:org/sso",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const { organization, nav } = await staffOnly(who, params.org);
        // Who may sign in is as sensitive as a key: the same recent sign-in is needed.
        requireFreshSignIn(
          who,
          deps.now(),
          `/app/orgs/${encodeURIComponent(organization.slug)}/sso`,
        );
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
        if (result.ok) {
          return kit.redirect(`/app/orgs/${encodeURIComponent(organization.slug)}/sso?saved=1`);
        }
        const stored = await findSsoConfig(deps.db, organization.id);
        const page = ssoSettingsPage(who, nav, {
          stored,
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
      "/app/sso",
      async ({ request }) => {
        const who = await kit.visitor(request);
        const form = await kit.form(request, who);
        const value = form.text("organization", 254);
        const slug = await sso.organizationFor(value);
        if (slug) return kit.page(who, ssoContinuePage(who, slug));
        const error =
          "No single sign-on is set up for this organization or address. Check it, or sign in with an emailed code.";
        return kit.page(who, signInPage(who, { sso: { value, error } }), 400);
      },
      { parse: "none" },
    )
    .get("/app/sso/:org/start", async ({ request, params }) => {
      const who = await kit.visitor(request);
      const started = await sso.start(params.org, clientIpOf(request));
      if (!started.ok) {
        return kit.page(who, errorPage(who, started.status, started.message), started.status);
      }
      const cookie = ssoCookie(started.token, SSO_ATTEMPT_TTL_MS / 1000);
      return kit.redirect(started.location, [...who.setCookies, cookie]);
    })
    .get("/app/sso/callback", async ({ request }) => {
      const who = await kit.visitor(request);
      const token = readCookies(request.headers.get("cookie")).get(SSO_COOKIE);
      const finished = await sso.finish(token, new URL(request.url).search, clientIpOf(request));
      who.setCookies.push(ssoCookie("", 0));
      if (!finished.ok) {
        return kit.page(who, errorPage(who, finished.status, finished.message), finished.status);
      }
      if (who.signedIn) await endSession(deps.db, who.signedIn.session.id);
      const { token: session } = await startSession(deps.db, finished.person.id, deps.now());
      return kit.redirect("/app/", [ssoCookie("", 0), kit.sessionCookie(session)]);
    });
}
