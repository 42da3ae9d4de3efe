import { Elysia, t } from "elysia";
import type { WorkspaceDeps } from "../deps.ts";
import { listOf } from "../list.ts";
import { findOrganization } from "../resolve.ts";
import { listOAuthClients, oauthClientOut, registerOAuthClient } from "./clients.ts";

/** The operator's internal API for an organization's OAuth applications (public clients). */
export const OAuthClientIn = t.Object({
  name: t.String({ minLength: 1, maxLength: 100 }),
  redirect_uris: t.Optional(t.Array(t.String({ maxLength: 500 }), { maxItems: 10 })),
  grant_types: t.Array(t.String({ maxLength: 100 }), { minItems: 1, maxItems: 2 }),
});

export function oauthInternalRoutes(deps: WorkspaceDeps) {
  return new Elysia()
    .get("/internal/v1/orgs/:org/oauth_clients", async ({ params }) => {
      const organization = await findOrganization(deps.db, params.org);
      return listOf((await listOAuthClients(deps.db, organization.id)).map(oauthClientOut));
    })
    .post(
      "/internal/v1/orgs/:org/oauth_clients",
      async ({ params, body, set }) => {
        set.status = 201;
        return oauthClientOut(await registerOAuthClient(deps.db, params.org, body, null));
      },
      { body: OAuthClientIn },
    );
}
