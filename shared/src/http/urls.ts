/** The path of a URL, without parsing it whole. */
export function pathOf(url: string): string {
  const target = targetOf(url);
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}

/**
 * The request target of a URL: its path and query, without parsing it whole. Bun gives the bare
 * target as `request.url` when the request had no Host.
 */
export function targetOf(url: string): string {
  if (url.startsWith("/")) return url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  return start === -1 ? "/" : url.slice(start);
}

/** The query parameters of a URL, without parsing it whole (its host may be one URL refuses). */
export function queryOf(url: string): URLSearchParams {
  const target = targetOf(url);
  const query = target.indexOf("?");
  return new URLSearchParams(query === -1 ? "" : target.slice(query + 1));
}

const HOST_SHAPE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]+)(?::(\d{0,5}))?$/;

/** The last host found valid: nearly every request names the same one. */
let lastValidHost: string | null = null;

/** Whether a Host header is a host with an optional port from 0 to 65535 (RFC 9110, 7.2). */
export function isValidHost(host: string): boolean {
  if (host === lastValidHost) return true;
  const shape = HOST_SHAPE.exec(host);
  if (!shape) return false;
  const port = shape[1];
  if (port !== undefined && port !== "" && Number(port) > 65535) return false;
  if (!URL.canParse(`http://${host}/`)) return false;
  lastValidHost = host;
  return true;
}

/** The origin given to a request whose own cannot be routed on (see `routable`). */
const PLACEHOLDER_ORIGIN = "http://localhost";

/**
 * The request as the apps can route it. Bun builds `request.url` from Host: without one (legal
 * in HTTP/1.0) or with an empty one it is the bare target, and Elysia's router reads the path
 * from the 12th character on, past a host under four characters. Such a request gets a
 * placeholder origin: routing is on the request target, and the Host header stays as sent.
 */
export function routable(request: Request): Request {
  const url = request.url;
  const target = targetOf(url);
  if (url.indexOf("/", 11) === url.length - target.length) return request;
  return new Request(PLACEHOLDER_ORIGIN + target, request);
}

/** The GET a request of another method asks about: the same target and headers. */
export function asGet(request: Request): Request {
  return new Request(request.url, {
    method: "GET",
    headers: request.headers,
    signal: request.signal,
  });
}
