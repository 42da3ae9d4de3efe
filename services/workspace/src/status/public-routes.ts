import { createHash } from "node:crypto";
import { ApiError } from "@newsroom/shared/errors";
import { requestIdOf } from "@newsroom/shared/http/request-context";
import { Elysia } from "elysia";
import { STATUS_OPERATIONS as DOC } from "./contract.ts";
import type { StatusWriteContext } from "./incidents.ts";
import { componentsJson, incidentJson, pageJson, statusJson, summaryJson } from "./json.ts";
import {
  atomFeed,
  incidentPage,
  notFoundPage,
  rssFeed,
  STATUS_STYLESHEET,
  statusPage,
} from "./page.ts";
import type { ServedSnapshot, SnapshotCache, StatusSnapshot } from "./snapshot.ts";

/** The status page as the workspace serves it: its snapshot cache and the incidents' writer. */
export interface StatusModule {
  snapshots: SnapshotCache;
  write: StatusWriteContext;
}

/** Whether a path is the status page's (the workspace answers it; the gateway routes it here). */
export function isStatusPath(path: string): boolean {
  return (
    path === "/status" ||
    path.startsWith("/status/") ||
    (path.startsWith("/api/v2/") && path.endsWith(".json"))
  );
}

const PAGE_SECURITY = {
  "content-security-policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};

/**
 * A public answer: short shared caching (30 s; 10 s while the database is away), an ETag of the
 * body, and 304 when the client has it.
 */
function publicAnswer(
  request: Request,
  body: string,
  contentType: string,
  stale: boolean,
  extra: Record<string, string> = {},
  status = 200,
): Response {
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  const headers = new Headers({
    "content-type": contentType,
    "cache-control": `public, max-age=${stale ? 10 : 30}`,
    etag,
    ...extra,
  });
  if (status === 200 && request.headers.get("if-none-match") === etag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { status, headers });
}

/**
 * A refusal of the status page's own: the Error record as JSON, never the web app's error page
 * (whose links are the signed-in app's).
 */
function errorAnswer(request: Request, error: ApiError): Response {
  const headers = new Headers({
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    ...error.headers,
  });
  return new Response(JSON.stringify(error.toBody(requestIdOf(request))), {
    status: error.status,
    headers,
  });
}

const NOT_KNOWN_YET = () =>
  new ApiError("content_unavailable", "The status is not known yet; try again shortly.", {
    headers: { "retry-after": "30" },
  });

function jsonAnswer(
  request: Request,
  served: ServedSnapshot,
  make: (s: StatusSnapshot) => unknown,
) {
  if (!served.snapshot) return errorAnswer(request, NOT_KNOWN_YET());
  return publicAnswer(
    request,
    JSON.stringify(make(served.snapshot)),
    "application/json; charset=utf-8",
    served.stale,
    { "access-control-allow-origin": "*", "x-content-type-options": "nosniff" },
  );
}

/**
 * `/status`, an incident's page, the Atom and RSS feeds, and the Statuspage-compatible JSON
 * (`/api/v2/summary.json`, `status.json`, `components.json`, `incidents.json`,
 * `scheduled-maintenances.json`). All read the cached snapshot: never the database per request.
 */
export function statusPublicRoutes(status: StatusModule) {
  const base = status.write.publicBaseUrl;
  return new Elysia({ name: "status-public" })
    .get(
      "/status/styles.css",
      () =>
        new Response(STATUS_STYLESHEET, {
          headers: {
            "content-type": "text/css; charset=utf-8",
            "cache-control": "public, max-age=3600",
            "x-content-type-options": "nosniff",
          },
        }),
      { detail: DOC.styles },
    )
    .get(
      "/status",
      async ({ request }) => {
        const served = await status.snapshots.get();
        return publicAnswer(
          request,
          `<!doctype html>\n${statusPage(served, new Date(), new URL(request.url).searchParams.get("subscribed")).value}`,
          "text/html; charset=utf-8",
          served.stale,
          PAGE_SECURITY,
        );
      },
      { detail: DOC.page },
    )
    .get(
      "/status/incidents/:id",
      async ({ request, params }) => {
        const served = await status.snapshots.get();
        const page = incidentPage(served, params.id);
        if (!page) {
          return publicAnswer(
            request,
            `<!doctype html>\n${notFoundPage(served).value}`,
            "text/html; charset=utf-8",
            served.stale,
            PAGE_SECURITY,
            404,
          );
        }
        return publicAnswer(
          request,
          `<!doctype html>\n${page.value}`,
          "text/html; charset=utf-8",
          served.stale,
          PAGE_SECURITY,
        );
      },
      { detail: DOC.incidentPage },
    )
    .get(
      "/status/history.atom",
      async ({ request }) => {
        const served = await status.snapshots.get();
        if (!served.snapshot) return errorAnswer(request, NOT_KNOWN_YET());
        return publicAnswer(
          request,
          atomFeed(served.snapshot, base),
          "application/atom+xml; charset=utf-8",
          served.stale,
        );
      },
      { detail: DOC.atom },
    )
    .get(
      "/status/history.rss",
      async ({ request }) => {
        const served = await status.snapshots.get();
        if (!served.snapshot) return errorAnswer(request, NOT_KNOWN_YET());
        return publicAnswer(
          request,
          rssFeed(served.snapshot, base),
          "application/rss+xml; charset=utf-8",
          served.stale,
        );
      },
      { detail: DOC.rss },
    )
    .get(
      "/api/v2/summary.json",
      async ({ request }) =>
        jsonAnswer(request, await status.snapshots.get(), (s) => summaryJson(s, base)),
      { detail: DOC.summary },
    )
    .get(
      "/api/v2/status.json",
      async ({ request }) =>
        jsonAnswer(request, await status.snapshots.get(), (s) => ({
          page: pageJson(s, base),
          status: statusJson(s),
        })),
      { detail: DOC.status },
    )
    .get(
      "/api/v2/components.json",
      async ({ request }) =>
        jsonAnswer(request, await status.snapshots.get(), (s) => ({
          page: pageJson(s, base),
          components: componentsJson(s),
        })),
      { detail: DOC.components },
    )
    .get(
      "/api/v2/incidents.json",
      async ({ request }) =>
        jsonAnswer(request, await status.snapshots.get(), (s) => ({
          page: pageJson(s, base),
          incidents: s.incidents.map((entry) => incidentJson(entry, base, s.components)),
        })),
      { detail: DOC.incidents },
    )
    .get(
      "/api/v2/incidents/unresolved.json",
      async ({ request }) =>
        jsonAnswer(request, await status.snapshots.get(), (s) => ({
          page: pageJson(s, base),
          incidents: s.activeIncidents.map((entry) => incidentJson(entry, base, s.components)),
        })),
      { detail: DOC.unresolved },
    )
    .get(
      "/api/v2/scheduled-maintenances.json",
      async ({ request }) =>
        jsonAnswer(request, await status.snapshots.get(), (s) => ({
          page: pageJson(s, base),
          scheduled_maintenances: s.maintenances.map((entry) =>
            incidentJson(entry, base, s.components),
          ),
        })),
      { detail: DOC.maintenances },
    )
    .get(
      "/api/v2/scheduled-maintenances/upcoming.json",
      async ({ request }) =>
        jsonAnswer(request, await status.snapshots.get(), (s) => ({
          page: pageJson(s, base),
          scheduled_maintenances: s.openMaintenances
            .filter((entry) => entry.incident.status === "scheduled")
            .map((entry) => incidentJson(entry, base, s.components)),
        })),
      { detail: DOC.upcoming },
    )
    .get(
      "/api/v2/scheduled-maintenances/active.json",
      async ({ request }) =>
        jsonAnswer(request, await status.snapshots.get(), (s) => ({
          page: pageJson(s, base),
          scheduled_maintenances: s.openMaintenances
            .filter((entry) => entry.incident.status !== "scheduled")
            .map((entry) => incidentJson(entry, base, s.components)),
        })),
      { detail: DOC.active },
    );
}
