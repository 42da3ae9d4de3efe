import { httpKit } from "@newsroom/shared/http/http-kit";
import { requestIdOf } from "@newsroom/shared/http/request-context";
import { pathOf } from "@newsroom/shared/http/urls";
import { Elysia } from "elysia";
import { createSignInService } from "../identity/sign-in/service.ts";
import { createOAuthApi, isOAuthApiPath } from "../oauth/api-routes.ts";
import { oauthWebRoutes } from "../oauth/web-routes.ts";
import { isStatusPath, statusPublicRoutes } from "../status/public-routes.ts";
import type { WebDeps } from "./deps.ts";
import { Redirect, webKit } from "./kit.ts";
import { errorPage } from "./pages/error.ts";
import { apiApprovalsWebRoutes } from "./routes/api-approvals.ts";
import { applicationsWebRoutes } from "./routes/applications.ts";
import { assetsWebRoutes } from "./routes/assets.ts";
import { auditWebRoutes } from "./routes/audit.ts";
import { cmsConnectionsWebRoutes } from "./routes/cms-connections.ts";
import { freshSignInWebRoutes } from "./routes/fresh-sign-in.ts";
import { keysWebRoutes } from "./routes/keys.ts";
import { membersWebRoutes } from "./routes/members.ts";
import { newsletterWebRoutes } from "./routes/newsletter.ts";
import { oauthClientsWebRoutes } from "./routes/oauth-clients.ts";
import { organizationsWebRoutes } from "./routes/organizations.ts";
import { previewLinksWebRoutes } from "./routes/preview-links.ts";
import { signInWebRoutes } from "./routes/sign-in.ts";
import { sitesWebRoutes } from "./routes/sites.ts";
import { ssoWebRoutes } from "./routes/sso.ts";
import { statusWebRoutes } from "./routes/status.ts";
import { storiesWebRoutes } from "./routes/stories.ts";
import { storyEditorWebRoutes } from "./routes/story-editor.ts";
import { storyPreviewWebRoutes } from "./routes/story-preview.ts";
import { webhookCatalogWebRoutes } from "./routes/webhook-catalog.ts";
import { webhookEndpointsWebRoutes } from "./routes/webhook-endpoints.ts";
import { webhookResendWebRoutes } from "./routes/webhook-resend.ts";
import { secretOnceWebRoutes } from "./secret-once.ts";
import { STYLESHEET } from "./styles.ts";
import { timeZoneScriptRoutes } from "./time-zones.ts";

/**
 * The workspace web app for people, under /app: server-rendered pages that work without
 * script. Every refusal is an HTML page with its status.
 */
export function createWebApp(deps: WebDeps) {
  const kit = webKit(deps);
  const signIn = createSignInService(deps);
  // Every refusal is a page, a sign-in needed is a redirect: the kit's one error path.
  const kitOfService = httpKit("workspace-web", {
    renderError(thrown, request, failureOf) {
      if (thrown instanceof Redirect) return kit.redirect(thrown.location, thrown.setCookies);
      const failure = failureOf();
      const message =
        failure.code === "not_found"
          ? "There is nothing here, or you have no access to it."
          : failure.message;
      const response = kit.page(null, errorPage(null, failure.status, message), failure.status);
      for (const [name, value] of Object.entries(failure.headers))
        response.headers.set(name, value);
      response.headers.set("x-request-id", requestIdOf(request));
      return response;
    },
  });
  const app = new Elysia({ name: "workspace-web" })
    .use(kitOfService)
    .get(
      "/app/styles.css",
      () =>
        new Response(STYLESHEET, {
          headers: {
            "content-type": "text/css; charset=utf-8",
            "cache-control": "public, max-age=3600",
            "x-content-type-options": "nosniff",
          },
        }),
    )
    .use(signInWebRoutes(deps, kit, signIn))
    .use(organizationsWebRoutes(deps, kit))
    .use(storiesWebRoutes(deps, kit))
    .use(previewLinksWebRoutes(deps, kit))
    .use(storyEditorWebRoutes(deps, kit))
    .use(storyPreviewWebRoutes(deps, kit))
    .use(assetsWebRoutes(deps, kit))
    .use(newsletterWebRoutes(deps, kit))
    .use(sitesWebRoutes(deps, kit))
    .use(cmsConnectionsWebRoutes(deps, kit))
    .use(membersWebRoutes(deps, kit))
    .use(auditWebRoutes(deps, kit))
    .use(ssoWebRoutes(deps, kit))
    .use(secretOnceWebRoutes())
    .use(timeZoneScriptRoutes())
    .use(freshSignInWebRoutes(deps, kit, signIn))
    .use(keysWebRoutes(deps, kit))
    .use(webhookEndpointsWebRoutes(deps, kit))
    .use(webhookCatalogWebRoutes(deps, kit))
    .use(webhookResendWebRoutes(deps, kit))
    .use(oauthWebRoutes(deps, kit))
    .use(deps.status ? statusPublicRoutes(deps.status) : new Elysia())
    .use(deps.status ? statusWebRoutes(deps, deps.status, kit) : new Elysia())
    .use(oauthClientsWebRoutes(deps, kit))
    .use(apiApprovalsWebRoutes(deps, kit))
    .use(applicationsWebRoutes(deps, kit));
  kitOfService.bindRoutes(app);
  // Beside the pages, the authorization server's endpoints and approvals through the API:
  // JSON, not pages, so a kit of their own.
  const oauthApi = createOAuthApi(deps);
  return {
    app,
    oauthApi,
    signIn,
    handle: (request: Request) =>
      isOAuthApiPath(pathOf(request.url)) ? oauthApi.handle(request) : app.handle(request),
  };
}

export type WebApp = ReturnType<typeof createWebApp>;

/**
 * Whether a path belongs to the web app: /app, the OAuth endpoints and approvals through the API
 * beside it, and the public status page it also serves.
 */
export function isWebAppPath(path: string): boolean {
  return path === "/app" || path.startsWith("/app/") || isOAuthApiPath(path) || isStatusPath(path);
}
