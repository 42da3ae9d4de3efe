import { ApiError } from "@newsroom/shared/errors";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { pathOf } from "@newsroom/shared/http/urls";
import { fieldsWithNul } from "@newsroom/shared/nul-characters";
import { readiness, readinessResponse } from "@newsroom/shared/service";
import { sql } from "drizzle-orm";
import { Elysia } from "elysia";
import { checkAdminToken } from "./auth.ts";
import type { WorkspaceDeps } from "./deps.ts";
import { type DigestOptions, digestRoutes } from "./digest/routes.ts";
import { keysRoutes } from "./keys/routes.ts";
import { membersRoutes } from "./members/routes.ts";
import { organizationNewsletterRoutes } from "./organization-newsletter/routes.ts";
import { organizationsRoutes } from "./organizations/routes.ts";
import { sandboxRoutes } from "./sandbox/routes.ts";
import { sitesRoutes } from "./sites/routes.ts";
import { ssoRoutes } from "./sso/routes.ts";
import { storiesRoutes } from "./stories/routes.ts";
import { webhookDeliveriesRoutes } from "./webhook-deliveries/routes.ts";
import { webhookEndpointsRoutes } from "./webhook-endpoints/routes.ts";

/**
 * The workspace internal API: never behind the public gateway; every route needs ADMIN_TOKEN.
 * `digest` configures the weekly digest sender (read from the environment when left out).
 */
export function createWorkspaceApp(deps: WorkspaceDeps, options: { digest?: DigestOptions } = {}) {
  const kit = httpKit("workspace");
  const app = new Elysia({ name: "workspace" })
    .use(kit)
    .get("/health", () => ({ status: "ok", service: "workspace" }))
    .get(
      "/health/ready",
      readinessResponse(
        readiness([
          { name: "database", check: async () => void (await deps.db.execute(sql`select 1`)) },
        ]),
      ),
    )
    .onRequest(({ request }) => {
      if (pathOf(request.url).startsWith("/internal/")) {
        checkAdminToken(request.headers.get("authorization"), deps.adminToken);
      }
    })
    .onTransform(({ body, params }) => refuseNulCharacters(body, params))
    .use(organizationsRoutes(deps))
    .use(membersRoutes(deps))
    .use(sitesRoutes(deps))
    .use(keysRoutes(deps))
    .use(storiesRoutes(deps))
    .use(webhookEndpointsRoutes(deps))
    .use(webhookDeliveriesRoutes(deps))
    .use(ssoRoutes(deps))
    .use(sandboxRoutes(deps))
    .use(digestRoutes(deps.db, options.digest))
    .use(organizationNewsletterRoutes(deps.db, options.digest));
  kit.bindRoutes(app);
  return app;
}

/**
 * Text with U+0000 cannot be stored: a body holding it is refused naming each field, before the
 * schema checks run; an identifier in the path holding it names nothing that exists.
 */
function refuseNulCharacters(body: unknown, params: Record<string, string> | undefined): void {
  if (params && fieldsWithNul(params).length > 0) throw new ApiError("not_found");
  const fields = fieldsWithNul(body);
  if (fields.length === 0) return;
  const message = "Text may not contain the NUL character (U+0000).";
  throw new ApiError("validation_failed", message, {
    fields: fields.map((field) => ({ field, reason: "nul_character", message })),
  });
}
