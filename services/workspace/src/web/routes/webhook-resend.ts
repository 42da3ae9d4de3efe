import { ApiError } from "@newsroom/shared/errors";
import { RECOVER_MAX_DAYS } from "@newsroom/shared/webhook-endpoint-commands";
import { Elysia } from "elysia";
import { personActor } from "../../audit.ts";
import { can, type PermissionAction } from "../../identity/members/permissions.ts";
import {
  deliveryOrganization,
  endpointOrganization,
  getDelivery,
  getEndpoint,
  listDeliveryAttempts,
  recoverEndpoint,
  resendDelivery,
} from "../../webhook-endpoints/commands.ts";
import { lastDisabledAt } from "../../webhook-endpoints/lookups.ts";
import type { WebDeps } from "../deps.ts";
import { withDone } from "../flash.ts";
import { requireFreshSignIn } from "../fresh-sign-in.ts";
import type { SignedInVisitor, WebKit } from "../kit.ts";
import { deliveryPage } from "../pages/webhook-delivery.ts";
import { minuteOf, recoverPage } from "../pages/webhook-recover.ts";

const DAY_MS = 24 * 3_600_000;

/**
 * A delivery's page with its attempt details, resending one delivery from the endpoint's
 * delivery log, and recovering an endpoint's failed
 * deliveries since a time (offered after enabling it). Both need `endpoint.enable` (an owner or
 * admin) and a sign-in from the last 12 hours.
 */
export function webhookResendWebRoutes(deps: WebDeps, kit: WebKit) {
  const endpointPath = (id: string) => `/app/webhook-endpoints/${id}`;

  async function endpointOf(
    who: SignedInVisitor,
    id: string,
    action: PermissionAction = "endpoint.enable",
  ) {
    const access = await kit.permit(who, await endpointOrganization(deps, id), action);
    const endpoint = await getEndpoint(deps, access.organization.id, id);
    return { access, endpoint };
  }

  /** The default start: when the endpoint was last disabled, else a day ago; never past 14 days. */
  async function defaultSince(orgId: string, endpointId: string): Promise<Date> {
    const now = deps.now().getTime();
    const disabledAt = await lastDisabledAt(deps.db, orgId, endpointId);
    const oldest = now - RECOVER_MAX_DAYS * DAY_MS + 60_000;
    return new Date(Math.max(disabledAt?.getTime() ?? now - DAY_MS, oldest));
  }

  return new Elysia()
    .get("/app/webhook-deliveries/:id", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const owner = await deliveryOrganization(deps, params.id);
      // Whoever may open the endpoint's page may read its deliveries' attempts.
      const { access, endpoint } = await endpointOf(who, owner.endpointId, "endpoint.create");
      const [delivery, attempts] = await Promise.all([
        getDelivery(deps, access.organization.id, params.id),
        listDeliveryAttempts(deps, access.organization.id, params.id),
      ]);
      const mayResend = endpoint.status === "enabled" && can(access.role, "endpoint.enable");
      return kit.page(who, deliveryPage(who, { access, endpoint, delivery, attempts, mayResend }));
    })
    .post(
      "/app/webhook-deliveries/:id/resend",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        await kit.form(request, who);
        const owner = await deliveryOrganization(deps, params.id);
        await kit.permit(who, owner.organizationId, "endpoint.enable");
        requireFreshSignIn(who, deps.now(), endpointPath(owner.endpointId));
        const resent = await resendDelivery(
          deps,
          owner.organizationId,
          params.id,
          personActor(who.signedIn.person.id),
        );
        return kit.redirect(withDone(endpointPath(resent.endpoint_id), "delivery-resent"));
      },
      { parse: "none" },
    )
    .get("/app/webhook-endpoints/:id/recover", async ({ request, params }) => {
      const who = await kit.signedIn(request);
      const { access, endpoint } = await endpointOf(who, params.id);
      const since = await defaultSince(access.organization.id, endpoint.id);
      const enabled = new URL(request.url).searchParams.get("enabled") === "1";
      return kit.page(who, recoverPage(who, { access, endpoint, since: minuteOf(since), enabled }));
    })
    .post(
      "/app/webhook-endpoints/:id/recover",
      async ({ request, params }) => {
        const who = await kit.signedIn(request);
        const form = await kit.form(request, who);
        const { access, endpoint } = await endpointOf(who, params.id);
        requireFreshSignIn(who, deps.now(), `${endpointPath(params.id)}/recover`);
        const typed = form.text("since", 64);
        // The field is UTC to the minute; a time without a zone is read as UTC.
        const value = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(typed) ? `${typed}Z` : typed;
        try {
          const { resent } = await recoverEndpoint(
            deps,
            access.organization.id,
            endpoint.id,
            value,
            personActor(who.signedIn.person.id),
          );
          return kit.page(who, recoverPage(who, { access, endpoint, since: typed, resent }));
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== "validation_failed") throw error;
          const message = error.fields?.[0]?.message ?? error.message;
          return kit.page(
            who,
            recoverPage(who, { access, endpoint, since: typed, error: message }),
            422,
          );
        }
      },
      { parse: "none" },
    );
}
