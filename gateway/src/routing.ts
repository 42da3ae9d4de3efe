import type { Config } from "@newsroom/shared/config";
import { hostedPagesPrefix, isClientHost } from "@newsroom/shared/page-host";

/** Which service answers a path: the spec's path names the service. */
export type ServiceName = "public-read" | "forms" | "client-api" | "workspace";

const FORMS_PATHS = [
  "/v1/public/contact",
  "/v1/public/careers",
  "/v1/public/newsletter",
  "/v1/public/start",
];
const CLIENT_API_PATHS = [
  "/v1/stories",
  "/v1/approvals",
  "/v1/feed.json",
  "/v1/feed.xml",
  "/v1/webhook_endpoints",
  "/v1/webhook_deliveries",
];

/**
 * The workspace's public API beside its web app: the OAuth authorization server's endpoints and
 * a person's approval decisions through an application (the workspace owns stories).
 */
const WORKSPACE_API_PATHS = ["/oauth/token", "/oauth/device_authorization", "/oauth/revoke"];
const STORY_DECISION_PATH = /^\/v1\/stories\/[^/]+\/(?:approve|reject)$/;

function under(path: string, prefix: string): boolean {
  return (
    path.startsWith(prefix) &&
    (path.length === prefix.length || path.charCodeAt(prefix.length) === 47) // "/"
  );
}

export function serviceFor(path: string): ServiceName | null {
  if (FORMS_PATHS.some((prefix) => under(path, prefix))) return "forms";
  if (under(path, "/v1/public")) return "public-read";
  if (WORKSPACE_API_PATHS.includes(path) || STORY_DECISION_PATH.test(path)) return "workspace";
  if (CLIENT_API_PATHS.some((prefix) => under(path, prefix))) return "client-api";
  // The people's web app only: the workspace's internal API is never reachable here.
  if (under(path, "/app")) return "workspace";
  return null;
}

/** The gateway's own paths: never a page, whatever the host. */
export const GATEWAY_PATHS = [
  "/health",
  "/health/ready",
  "/v1/openapi.json",
  "/docs",
  "/.well-known/oauth-authorization-server",
];

/**
 * Which service answers a request: the service its path names (the API, on any host), else
 * public reads for newsroom pages: any path on a client's hostname (a host that is not the
 * service's own), and `/newsroom…` and NEWSROOM_HOST's path (`/newsrooms…`) on the service's own.
 */
export function serviceForRequest(
  path: string,
  host: string | null,
  config: Pick<Config, "PUBLIC_BASE_URL" | "NEWSROOM_HOST">,
): ServiceName | null {
  const service = serviceFor(path);
  if (service) return service;
  if (GATEWAY_PATHS.includes(path) || under(path, "/docs")) return null;
  if (isClientHost(host, config)) return "public-read";
  const hosted = hostedPagesPrefix(config) || "/newsrooms";
  if (under(path, "/newsroom") || under(path, hosted)) return "public-read";
  // Uploaded images' public variants, which the pages on the service's hosts name.
  if (under(path, "/assets")) return "public-read";
  // The house icon, which browsers ask for at the root of every page's host.
  if (path === "/favicon.ico") return "public-read";
  // The service's host's own robots.txt and the house sitemap (split into parts past 50,000).
  if (path === "/robots.txt" || /^\/sitemap(?:-[1-9][0-9]{0,5})?\.xml$/.test(path)) {
    return "public-read";
  }
  return null;
}
