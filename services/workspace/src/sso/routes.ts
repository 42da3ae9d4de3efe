import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { findOrganization } from "../resolve.ts";
import { SsoConfigIn, ssoConfigOut } from "./model.ts";
import { configureSso } from "./service.ts";
import { findSsoConfig } from "./store.ts";

/** An organization's single sign-on, for operators (the internal API). */
export function ssoRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .get("/internal/v1/orgs/:org/sso", async ({ params }) => {
      const org = await findOrganization(deps.db, params.org);
      const row = await findSsoConfig(deps.db, org.id);
      if (!row)
        throw new ApiError("not_found", "Single sign-on is not set up for this organization.");
      return ssoConfigOut(row);
    })
    .put(
      "/internal/v1/orgs/:org/sso",
      async ({ params, body }) => {
        const org = await findOrganization(deps.db, params.org);
        const result = await configureSso(
          deps.db,
          deps.secretsKey,
          org.id,
          {
            issuer: body.issuer.trim(),
            clientId: body.client_id.trim(),
            clientSecret: body.client_secret ?? "",
            allowedDomains: body.allowed_domains.map((domain) => domain.trim().toLowerCase()),
            enabled: body.enabled,
          },
          { actor: "admin", allowLoopbackHttp: deps.serviceEnv === "development", now: new Date() },
        );
        if (!result.ok) {
          const fields = Object.entries(result.problems).map(([field, message]) => ({
            field,
            reason: "invalid",
            message,
          }));
          throw new ApiError("validation_failed", fields[0]!.message, { fields });
        }
        return ssoConfigOut(result.row);
      },
      { body: SsoConfigIn },
    );
}
