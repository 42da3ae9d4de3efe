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

const contexts = new WeakMap<Request, RequestContext>();

/** The request's context, made empty on first use. */
export function contextOf(request: Request): RequestContext {
  let context = contexts.get(request);
  if (!context) {
    context = {};
    contexts.set(request, context);
  }
  return context;
}

/** The request's context if anyone has noted something about it yet. */
export function knownContextOf(request: Request): RequestContext | undefined {
  return contexts.get(request);
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
  const context = contexts.get(request);
  let address = context?.clientIp;
  if (typeof address === "function") {
    address = address();
    context!.clientIp = address;
  }
  return address ?? request.headers.get(CLIENT_IP_HEADER) ?? "unknown";
}

/** The route template that answered a request, once an app's router has matched it. */
export function matchedRouteOf(request: Request): string | undefined {
  return contexts.get(request)?.route;
}
