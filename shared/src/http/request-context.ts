import type { FieldError } from "../errors.ts";

/** Headers the edge sets on every request it passes on, and every response carries. */
export const REQUEST_ID_HEADER = "x-request-id";
export const CLIENT_IP_HEADER = "x-client-ip";

/** What the edge and the apps know of a request beyond its headers. */
export interface RequestContext {
  /** The app and route template that answered, once an app has routed the request. */
  service?: string;
  route?: string;
  /** The client address, or how to find it: the socket is asked only when someone needs it. */
  clientIp?: string | (() => string);
  /**
   * The query parameters the route's schema names in their order, and those of them given more
   * than once: refused with the other bad parameters (`http-kit.ts`).
   */
  query?: { names: string[]; repeated: FieldError[] };
}

/**
 * Kept on the request itself, under a symbol no one else knows: a WeakMap entry per request cost
 * a kept public answer several percent of its throughput.
 */
const CONTEXT = Symbol("request context");
type WithContext = Request & { [CONTEXT]?: RequestContext };

/** The request's context, made empty on first use. */
export function contextOf(request: Request): RequestContext {
  const holder = request as WithContext;
  let context = holder[CONTEXT];
  if (!context) {
    context = {};
    holder[CONTEXT] = context;
  }
  return context;
}

/** The request's context if anyone has noted something about it yet. */
export function knownContextOf(request: Request): RequestContext | undefined {
  return (request as WithContext)[CONTEXT];
}

export function requestIdOf(request: Request): string {
  return request.headers.get(REQUEST_ID_HEADER) ?? "req_unknown";
}

/**
 * The client address as the edge found it: the socket peer, `X-Forwarded-For` from a trusted
 * proxy, or our gateway's `X-Client-Ip`. Called in-process without an edge, a given
 * `X-Client-Ip`; else "unknown".
 */
export function clientIpOf(request: Request): string {
  const context = knownContextOf(request);
  let address = context?.clientIp;
  if (typeof address === "function") {
    address = address();
    context!.clientIp = address;
  }
  return address ?? request.headers.get(CLIENT_IP_HEADER) ?? "unknown";
}

/** The route template that answered a request, once an app's router has matched it. */
export function matchedRouteOf(request: Request): string | undefined {
  return knownContextOf(request)?.route;
}
