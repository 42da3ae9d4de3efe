import { Elysia } from "elysia";
import { auditCursor, auditEventsOf, parseAuditCursor } from "../../audit-log.ts";
import type { WebDeps } from "../deps.ts";
import type { WebKit } from "../kit.ts";
import { auditPage } from "../pages/audit.ts";

const PAGE_SIZE = 50;

/** An organization's audit log, newest first, paged by cursor (`?before=`). */
export function auditWebRoutes(deps: WebDeps, kit: WebKit) {
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
    };
    return kit.page(who, auditPage(who, access, data));
  });
}
