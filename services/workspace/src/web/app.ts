import { toApiError } from "@newsroom/shared/http/error-response";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { requestIdOf } from "@newsroom/shared/http/request-context";
import { Elysia } from "elysia";
import { createSignInService } from "../sign-in/service.ts";
import type { WebDeps } from "./deps.ts";
import { Redirect, webKit } from "./kit.ts";
import { errorPage } from "./pages/error.ts";
import { auditRoutes } from "./routes/audit.ts";
import { freshSignInRoutes } from "./routes/fresh-sign-in.ts";
import { keyRoutes } from "./routes/keys.ts";
import { memberRoutes } from "./routes/members.ts";
import { newsletterRoutes } from "./routes/newsletter.ts";
import { organizationRoutes } from "./routes/organizations.ts";
import { signInRoutes } from "./routes/sign-in.ts";
import { siteRoutes } from "./routes/sites.ts";
import { ssoRoutes } from "./routes/sso.ts";
import { storyRoutes } from "./routes/stories.ts";
import { webhookCatalogRoutes } from "./routes/webhook-catalog.ts";
import { webhookEndpointWebRoutes } from "./routes/webhook-endpoints.ts";
import { webhookResendWebRoutes } from "./routes/webhook-resend.ts";
import { copyScriptRoutes } from "./secret-once.ts";
import { STYLESHEET } from "./styles.ts";

/**
 * The workspace web app for people, under /app: server-rendered pages that work without
 * script. Every refusal is an HTML page with its status.
 */
export function createWebApp(deps: WebDeps) {
  const kit = webKit(deps);
  const signIn = createSignInService(deps);
  const kitOfService = httpKit("workspace-web");
  const app = new Elysia({ name: "workspace-web" })
    // Before the kit's JSON error handler, which it replaces here: refusals are pages.
    .onError({ as: "global" }, ({ error, request }) => {
      if (error instanceof Redirect) return kit.redirect(error.location, error.setCookies);
      const failure = toApiError(error, request);
      const message =
        failure.code === "not_found"
          ? "There is nothing here, or you have no access to it."
          : failure.message;
      const response = kit.page(null, errorPage(null, failure.status, message), failure.status);
      for (const [name, value] of Object.entries(failure.headers))
        response.headers.set(name, value);
      response.headers.set("x-request-id", requestIdOf(request));
      return response;
    })
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
    .use(signInRoutes(deps, kit, signIn))
    .use(organizationRoutes(deps, kit))
    .use(storyRoutes(deps, kit))
    .use(newsletterRoutes(deps, kit))
    .use(siteRoutes(deps, kit))
    .use(memberRoutes(deps, kit))
    .use(auditRoutes(deps, kit))
    .use(ssoRoutes(deps, kit))
    .use(copyScriptRoutes())
    .use(freshSignInRoutes(deps, kit, signIn))
    .use(keyRoutes(deps, kit))
    .use(webhookEndpointWebRoutes(deps, kit))
    .use(webhookCatalogRoutes(deps, kit))
    .use(webhookResendWebRoutes(deps, kit));
  return { app, signIn, handle: (request: Request) => app.handle(request) };
}

export type WebApp = ReturnType<typeof createWebApp>;

/** Whether a path belongs to the web app. */
export function isWebAppPath(path: string): boolean {
  return path === "/app" || path.startsWith("/app/");
}
