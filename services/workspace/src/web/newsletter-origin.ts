import type { Config } from "@newsroom/shared/config";

/** The addresses of this machine that development accepts over plain http. */
const LOCAL_HOSTS = ["localhost", "127.0.0.1"];

/** The origins the rule accepts, in words for a field's hint or error. */
export function originShapes(serviceEnv: Config["SERVICE_ENV"]): string {
  return serviceEnv === "development"
    ? "https://host[:port], or on this machine http://localhost:<port> or http://127.0.0.1:<port>"
    : "https://host or https://host:port";
}

/**
 * The one rule for newsletter origins (the web app, the internal API and CLI, the demo): a
 * website origin as people type it, checked and normalized, lower-case, without the default port.
 * `https://host[:port]`; in development also `http://localhost:<port>` and
 * `http://127.0.0.1:<port>`, so a page on this machine can try `embed.js`. Anything else (another
 * scheme, a path, a query, credentials) is an error message for the field.
 */
export function parseWebsiteOrigin(
  input: string,
  serviceEnv: Config["SERVICE_ENV"],
): { origin: string } | { error: string } {
  const text = input.trim().replace(/\/$/, "");
  const local = serviceEnv === "development";
  const shapes = originShapes(serviceEnv);
  if (!text) return { error: "Enter the website's origin, such as https://www.example.com." };
  const url = URL.canParse(text) ? new URL(text) : null;
  const allowed =
    url?.protocol === "https:" ||
    (local && url?.protocol === "http:" && LOCAL_HOSTS.includes(url.hostname));
  if (!url || !allowed) return { error: `Write an https origin: ${shapes}.` };
  if (url.username || url.password || url.pathname !== "/" || url.search || url.hash) {
    return { error: `Write the origin only, without a path: ${shapes}.` };
  }
  return { origin: url.origin.toLowerCase() };
}
