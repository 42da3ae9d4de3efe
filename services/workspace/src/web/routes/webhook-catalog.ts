import { Elysia } from "elysia";
import type { OrgAccess } from "../../identity/members/access.ts";
import { webhookCatalog } from "../../webhook-catalog/catalog.ts";
import { listEndpoints, verifySignature } from "../../webhook-endpoints/commands.ts";
import type { WebDeps } from "../deps.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { type VerifyFormState, webhookCatalogPage } from "../pages/webhook-catalog.ts";

/**
 * The payload catalog and its signature check, for who may see the organization's endpoints.
 * The check is the webhooks service's, which holds the endpoint's secrets and never shows them:
 * it only says whether, and where, the pasted request fails.
 */
export function webhookCatalogWebRoutes(deps: WebDeps, kit: WebKit) {
  async function page(who: SignedInVisitor, access: OrgAccess, state?: VerifyFormState) {
    const endpoints = await listEndpoints(deps, access.organization.id);
    return webhookCatalogPage(who, { access, entries: webhookCatalog(), endpoints }, state);
  }

  return new Elysia()
    .get("/app/orgs/:org/webhook-catalog", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const access = await kit.permit(who, params.org, "endpoint.create");
      return kit.page(who, await page(who, access));
    })
    .post(
      "/app/orgs/:org/webhook-catalog",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const access = await kit.permit(who, params.org, "endpoint.create");
        const state: VerifyFormState = {
          endpointId: form.text("endpoint", 100),
          headers: form.text("headers", 10_000),
          body: form.text("body", 1_000_000),
        };
        const endpoints = await listEndpoints(deps, access.organization.id);
        const endpoint = endpoints.find((row) => row.id === state.endpointId);
        if (!endpoint) state.problem = "Choose one of the organization's endpoints.";
        else if (!state.headers || !state.body)
          state.problem = "Paste both the headers and the body.";
        if (state.problem || !endpoint) return kit.page(who, await page(who, access, state), 422);
        state.verdict = await verifySignature(deps, access.organization.id, endpoint.id, {
          headers: state.headers!,
          body: state.body!,
        });
        return kit.page(who, await page(who, access, state));
      },
      { parse: "none" },
    );
}
