import { ApiError } from "@newsroom/shared/errors";
import { Elysia } from "elysia";
import { auditCursor, auditEventsOf, parseAuditCursor } from "../../audit-log.ts";
import { listEndpoints } from "../../webhook-endpoints/commands.ts";
import type { WebDeps } from "../deps.ts";
import type { WebKit } from "../kit.ts";
import { auditPage } from "../pages/audit.ts";

const PAGE_SIZE = 50;

/** An organization's audit log, newest first, paged by cursor (`?before=`). */
export function auditWebRoutes(deps: WebDeps, kit: WebKit) {
  /** The endpoints' URLs, from the webhooks service; while it does not answer, their ids show. */
  async function endpointUrlsOf(organizationId: string): Promise<Map<string, string>> {
    try {
      const endpoints = await listEndpoints(deps, organizationId);
      return new Map(endpoints.map((endpoint) => [endpoint.id, endpoint.url]));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return new Map();
    }
  }

  return new Elysia().get("/app/orgs/:org/audit", async ({ request, params, query }) => {
    const who = await kit.signedIn(request);
    const access = await kit.permit(who, params.org, "audit.view");
    const before = parseAuditCursor(typeof query.before === "string" ? query.before : undefined);
    const { events, next } = await auditEventsOf(deps.db, access.organization.id, {
      before,
      limit: PAGE_SIZE,
    });
    const base = `/app/orgs/${encodeURIComponent(access.organization.slug)}/audit`;
    const data = {
      events,
      nextPage: next ? `${base}?before=${auditCursor(next)}` : null,
      firstPage: before ? base : null,
      endpointUrls: events.some((entry) => entry.action.startsWith("webhook_endpoint."))
        ? await endpointUrlsOf(access.organization.id)
        : new Map<string, string>(),
    };
    return kit.page(who, auditPage(who, access, data));
  });
}
