import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import type { WorkspaceDeps } from "../../deps.ts";
import { listOf } from "../../list.ts";
import { findOrganization } from "../../resolve.ts";
import { type DomainStatus, domainStatuses, txtLookup, verifySsoDomain } from "./domains.ts";
import { SsoConfigIn, ssoConfigOut } from "./model.ts";
import { configureSso } from "./service.ts";
import { findSsoConfig } from "./store.ts";

const domainOut = (entry: DomainStatus) => ({
  object: "sso_domain" as const,
  domain: entry.domain,
  status: entry.status,
  verified_at: entry.verifiedAt?.toISOString() ?? null,
  record: { type: "TXT" as const, ...entry.record },
});

/** An organization's single sign-on, for operators (the internal API). */
export function ssoRoutes(deps: WorkspaceDeps) {
  const lookupTxt = deps.lookupTxt ?? txtLookup(undefined);
  const configOf = async (slug: string) => {
    const org = await findOrganization(deps.db, slug);
    const row = await findSsoConfig(deps.db, org.id);
    if (!row)
      throw new ApiError("not_found", "Single sign-on is not set up for this organization.");
    return { org, row };
  };
  return new Elysia()
    .get("/internal/v1/orgs/:org/sso", async ({ params }) =>
      ssoConfigOut((await configOf(params.org)).row),
    )
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
          {
            actor: "admin",
            allowLoopbackHttp: deps.serviceEnv === "development",
            now: new Date(),
          },
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
    )
    .get("/internal/v1/orgs/:org/sso/domains", async ({ params }) => {
      // Each allowed domain, and the TXT record that proves the organization controls it.
      const { org, row } = await configOf(params.org);
      const domains = await domainStatuses(deps.db, deps.secretsKey, org.id, row.allowedDomains);
      return listOf(domains.map(domainOut));
    })
    .post("/internal/v1/orgs/:org/sso/domains/:domain/verify", async ({ params }) => {
      const { org } = await configOf(params.org);
      const domain = params.domain.toLowerCase();
      const outcome = await verifySsoDomain(
        deps.db,
        { secretsKey: deps.secretsKey, lookupTxt },
        org.id,
        domain,
        { actor: "admin", now: new Date() },
      );
      if (!outcome.ok) {
        if (outcome.reason === "not_allowed") throw new ApiError("not_found", outcome.message);
        throw new ApiError("validation_failed", outcome.message, {
          fields: [{ field: "domain", reason: outcome.reason, message: outcome.message }],
        });
      }
      const [entry] = await domainStatuses(deps.db, deps.secretsKey, org.id, [domain]);
      return domainOut(entry!);
    });
}
