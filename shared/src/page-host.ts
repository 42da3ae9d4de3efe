import type { Config } from "./config.ts";

/**
 * Which host a request for a newsroom page was sent to, and whether that host may be a client's
 * own hostname. The gateway routes on it and public reads pick the pages on it, with this one
 * rule, so the two cannot disagree.
 */

/** The host the public sent the request to: our gateway's X-Forwarded-Host, else Host. */
export function publicHostOf(request: Request): string | null {
  return request.headers.get("x-forwarded-host") ?? request.headers.get("host");
}

/** A host without its port, lower-cased: `News.Example.com:443` is `news.example.com`. */
export function hostnameOf(host: string): string {
  const bracket = host.startsWith("[") ? host.indexOf("]") : -1;
  if (bracket !== -1) return host.slice(0, bracket + 1).toLowerCase();
  const colon = host.indexOf(":");
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
}

function hostnameOfUrl(url: string): string {
  const start = url.indexOf("//") + 2;
  const end = url.slice(start).search(/[/?#]/);
  return hostnameOf(end === -1 ? url.slice(start) : url.slice(start, start + end));
}

const LOCAL_OR_ADDRESS = /^(?:localhost|\[.*\]|\d{1,3}(?:\.\d{1,3}){3})$/;

/**
 * Whether `host` can name a client's hostname: not the service's own (PUBLIC_BASE_URL's or
 * NEWSROOM_HOST's host), not localhost and not an address (a client hostname is a DNS name).
 * Everything on the service's own hosts keeps its routes; only other hosts get host pages.
 */
export function isClientHost(
  host: string | null,
  config: Pick<Config, "PUBLIC_BASE_URL" | "NEWSROOM_HOST">,
): host is string {
  if (!host) return false;
  const name = hostnameOf(host);
  if (name === "" || LOCAL_OR_ADDRESS.test(name)) return false;
  return (
    name !== hostnameOfUrl(config.PUBLIC_BASE_URL) && name !== hostnameOfUrl(config.NEWSROOM_HOST)
  );
}

/** The path hosted newsrooms live under: NEWSROOM_HOST's path (`/newsrooms` by default). */
export function hostedPagesPrefix(config: Pick<Config, "NEWSROOM_HOST">): string {
  const url = config.NEWSROOM_HOST;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start === -1
    ? ""
    : url
        .slice(start)
        .replace(/[?#].*$/, "")
        .replace(/\/+$/, "");
}
