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

function under(path: string, prefix: string): boolean {
  return (
    path.startsWith(prefix) &&
    (path.length === prefix.length || path.charCodeAt(prefix.length) === 47) // "/"
  );
}

export function serviceFor(path: string): ServiceName | null {
  if (FORMS_PATHS.some((prefix) => under(path, prefix))) return "forms";
  if (under(path, "/v1/public")) return "public-read";
  if (CLIENT_API_PATHS.some((prefix) => under(path, prefix))) return "client-api";
  // The people's web app only: the workspace's internal API is never reachable here.
  if (under(path, "/app")) return "workspace";
  return null;
}
