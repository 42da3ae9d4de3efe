import { Elysia } from "elysia";
import { addressMatcher, clientIp, trustedProxies as parseTrusted } from "./client-ip.ts";
import { isDatabaseUnavailable } from "./db/unavailable.ts";
import { ApiError, type FieldError, temporarilyUnavailable } from "./errors.ts";
import { newRequestId } from "./ids.ts";
import { log } from "./log.ts";
import { requestMetrics, requestsAborted } from "./metrics.ts";
import { contractOf, retiringHeaders } from "./openapi/operation.ts";
import { recordAnswer } from "./openapi/recorder.ts";
import { SERVICE_VERSION } from "./version.ts";

/** Headers the edge sets on every request it passes on, and every response carries. */
export const REQUEST_ID_HEADER = "x-request-id";
export const CLIENT_IP_HEADER = "x-client-ip";
const REQUEST_ID_SHAPE = /^req_[A-Za-z0-9_-]{20}$/;

/** What the edge and the apps know of a request beyond its headers. */
interface RequestContext {
  /** The app and route template that answered, once an app has routed the request. */
  service?: string;
  route?: string;
  /** The client address, or how to find it: the socket is asked only when someone needs it. */
  clientIp?: string | (() => string);
}

const contexts = new WeakMap<Request, RequestContext>();

function contextOf(request: Request): RequestContext {
  let context = contexts.get(request);
  if (!context) {
    context = {};
    contexts.set(request, context);
  }
  return context;
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

/** Whether a Host header is a host with an optional port from 0 to 65535 (RFC 9110, 7.2). */
export function isValidHost(host: string): boolean {
  const shape = HOST_SHAPE.exec(host);
  if (!shape) return false;
  const port = shape[1];
  if (port !== undefined && port !== "" && Number(port) > 65535) return false;
  return URL.canParse(`http://${host}/`);
}

/** The origin given to a request whose own cannot be routed on (see `routable`). */
const PLACEHOLDER_ORIGIN = "http://localhost";

/**
 * The request as the apps can route it. Bun builds `request.url` from Host: without one (legal
 * in HTTP/1.0) or with an empty one it is the bare target, and Elysia's router reads the path
 * from the 12th character on, past a host under four characters. Such a request gets a
 * placeholder origin: routing is on the request target, and the Host header stays as sent.
 */
function routable(request: Request): Request {
  const url = request.url;
  const target = targetOf(url);
  if (url.indexOf("/", 11) === url.length - target.length) return request;
  return new Request(PLACEHOLDER_ORIGIN + target, request);
}

export function errorResponse(error: ApiError, requestId: string): Response {
  return Response.json(error.toBody(requestId), {
    status: error.status,
    headers: { ...error.headers, [REQUEST_ID_HEADER]: requestId },
  });
}

type ElysiaError = Error & { code?: unknown; status?: number };

function validationFields(error: ElysiaError): FieldError[] {
  const all = (error as { all?: { path: string; message: string }[] }).all ?? [];
  const fields = new Map<string, FieldError>();
  for (const entry of all) {
    const field = entry.path.replace(/^\//, "").replace(/\//g, ".") || "body";
    if (!fields.has(field)) fields.set(field, { field, reason: "invalid", message: entry.message });
  }
  return [...fields.values()];
}

/** Turns whatever was thrown into an ApiError; unknown errors become 500 api_error. */
export function toApiError(error: unknown, request: Request, allowed?: string[]): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as ElysiaError;
  switch (e?.code) {
    case "NOT_FOUND":
      if (allowed && allowed.length > 0) {
        return new ApiError("method_not_allowed", undefined, {
          headers: { allow: allowed.join(", ") },
        });
      }
      return new ApiError("not_found", "No route matches this path.");
    case "VALIDATION":
      return (e as { type?: string }).type === "body"
        ? new ApiError("validation_failed", undefined, { fields: validationFields(e) })
        : new ApiError("invalid_parameters", undefined, { fields: validationFields(e) });
    case "PARSE":
      return new ApiError("invalid_json", "The body could not be parsed.");
    case "INVALID_COOKIE_SIGNATURE":
      return new ApiError("invalid_parameters");
  }
  // A client gone before the answer (its body cut off, say) is not our failure; the edge counts
  // it (http_requests_aborted_total) and nobody reads this answer.
  if (request.signal.aborted) return new ApiError("api_error", "The client closed the connection.");
  if (isDatabaseUnavailable(error)) {
    log.warn("database unavailable", {
      request_id: requestIdOf(request),
      ...describeError(error),
    });
    return temporarilyUnavailable(contexts.get(request)?.service);
  }
  log.error("unhandled error", {
    request_id: requestIdOf(request),
    path: pathOf(request.url),
    ...describeError(e),
  });
  return new ApiError("api_error");
}

/**
 * What the logs say of an unexpected error: its class, its code (a PostgreSQL SQLSTATE, a system
 * code) and its message, never a query or its parameters (addresses, redirect URLs, tokens).
 * drizzle wraps the driver's error in one whose message is the failed query and its parameters:
 * the driver's error, its cause, is told instead. The stack keeps only its frames.
 */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error_class: typeof error };
  let told: Error = error;
  for (let depth = 0; depth < 5 && told.cause instanceof Error; depth++) told = told.cause;
  const code = (told as { code?: unknown }).code;
  return {
    error_class: error.constructor.name,
    ...(told === error ? {} : { cause_class: told.constructor.name }),
    ...(typeof code === "string" || typeof code === "number" ? { error_code: String(code) } : {}),
    error: withoutQuery(told.message),
    stack: error.stack
      ?.split("\n")
      .filter((line) => /^\s+at /.test(line))
      .join("\n"),
  };
}

/** A message cut where a query's text or its parameters begin. */
function withoutQuery(message: string): string {
  const start = message.search(
    /Failed query:|\bparams:|\b(?:select|insert into|update|delete from) /i,
  );
  return start === -1 ? message : `${message.slice(0, start)}[query removed]`;
}

/** The methods this app answers on a path, for 405 with `Allow`. */
function allowedMethods(app: { routes: { method: string; path: string }[] }, path: string) {
  const methods = new Set<string>();
  for (const route of app.routes) {
    const pattern = route.path
      .split("/")
      .map((part) =>
        part.startsWith(":")
          ? "[^/]+"
          : part === "*"
            ? ".*"
            : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    if (new RegExp(`^${pattern}$`).test(path)) methods.add(route.method.toUpperCase());
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].filter((m) => m !== "ALL").sort();
}

type RoutedApp = { routes: { method: string; path: string; hooks?: { detail?: unknown } }[] };

/**
 * The error handling every app shares: one Error record per failure, the request id in the body,
 * 405 for a known path with another method, never a stack trace. Routes marked retiring in their
 * `operation()` answer with `Deprecation` and `Sunset`.
 */
export function httpKit(name: string) {
  let routesOf: (path: string) => string[] = () => [];
  let retiring = new Map<string, Record<string, string>>();
  /** Notes the route that answers the request; gives its retiring headers, if it is retiring. */
  const routed = (request: Request, route: string) => {
    const context = contextOf(request);
    context.service = name;
    context.route = route;
    return retiring.size > 0 ? retiring.get(`${request.method} ${route}`) : undefined;
  };
  const kit = new Elysia({ name: `http-kit:${name}` })
    .onTransform({ as: "global" }, ({ request, route, set }) => {
      const headers = routed(request, route);
      if (headers) Object.assign(set.headers, headers);
    })
    .onError({ as: "global" }, ({ error, request, set }) => {
      const allowed =
        (error as ElysiaError)?.code === "NOT_FOUND" ? routesOf(pathOf(request.url)) : [];
      const response = errorResponse(toApiError(error, request, allowed), requestIdOf(request));
      const route = contexts.get(request)?.route;
      for (const header of ["deprecation", "sunset", "link"]) {
        const value = set.headers[header];
        if (route && typeof value === "string") response.headers.set(header, value);
      }
      return response;
    })
    .mapResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
      const status = typeof set.status === "number" ? set.status : 200;
      recordAnswer(name, request.method, route, status, responseValue);
    });
  return Object.assign(kit, {
    /**
     * What the kit's hooks do to an answer, for one the app gave without routing the request
     * (a cached answer): the route for metrics, retiring headers, the recorded answer.
     */
    answered(request: Request, route: string, response: Response): Response {
      const headers = routed(request, route);
      if (headers)
        for (const [header, value] of Object.entries(headers)) response.headers.set(header, value);
      recordAnswer(name, request.method, route, response.status, response);
      return response;
    },
    /** Tells the kit the app's routes: they decide 405 versus 404, and which are retiring. */
    bindRoutes(app: RoutedApp) {
      routesOf = (path) => allowedMethods(app, path);
      retiring = new Map();
      for (const route of app.routes) {
        const spec = contractOf(route.hooks?.detail);
        if (spec?.retiring) {
          retiring.set(`${route.method} ${route.path}`, retiringHeaders(spec.retiring));
        }
      }
    },
  });
}

/** The route template that answered a request, once an app's router has matched it. */
export function matchedRouteOf(request: Request): string | undefined {
  return contexts.get(request)?.route;
}

/**
 * Options for every Bun server of the service: never Bun's development error page (it shows the
 * exception, the working directory and source lines); an error that escapes the handler is a
 * plain 500 Error record with our headers.
 */
export const SERVER_SAFETY = {
  development: false,
  error(error: Error): Response {
    const requestId = newRequestId();
    log.error("unhandled error", { request_id: requestId, ...describeError(error) });
    return withServiceHeaders(errorResponse(new ApiError("api_error"), requestId), requestId);
  },
} as const;

/** The status a request whose client left before the answer is counted under (nginx's). */
const CLIENT_CLOSED_REQUEST = 499;

/** What Bun itself accepts; above it Bun answers 413 on its own, without our headers. */
export const SERVER_BODY_LIMIT = 16 * 1024 * 1024;
/** The largest body the service reads (forms set their own, smaller limit). */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface EdgeOptions {
  /** TRUSTED_PROXIES. */
  trustedProxies: string;
  /**
   * A service behind our own gateway: keep the gateway's request id when well formed, and its
   * `X-Client-Ip` when the peer is the gateway (in `gatewayAddresses`).
   */
  behindGateway?: boolean;
  /** GATEWAY_ADDRESSES: the only peers whose `X-Client-Ip` is believed; none when unset. */
  gatewayAddresses?: string;
}

export type FetchHandler = (
  request: Request,
  server?: { requestIP(r: Request): { address: string } | null },
) => Promise<Response>;

/**
 * Wraps an app's `handle` so that every response, whatever produced it, carries `X-Request-Id`
 * and `X-Service-Version`; the app sees the request id as a header and the client address
 * through `clientIpOf`.
 */
export function edge(
  handle: (request: Request) => Response | Promise<Response>,
  options: EdgeOptions,
): FetchHandler {
  const isTrusted = parseTrusted(options.trustedProxies);
  const isGateway = addressMatcher(options.gatewayAddresses ?? "", "GATEWAY_ADDRESSES");
  return async (incoming, server) => {
    const started = performance.now();
    const given = options.behindGateway ? incoming.headers.get(REQUEST_ID_HEADER) : null;
    const requestId = given && REQUEST_ID_SHAPE.test(given) ? given : newRequestId();
    const host = incoming.headers.get("host");
    if (host && !isValidHost(host)) {
      const refused = new ApiError("invalid_parameters", "The Host header is not a valid host.", {
        fields: [{ field: "host", reason: "invalid" }],
      });
      return withServiceHeaders(errorResponse(refused, requestId), requestId);
    }
    const request = withRequestId(routable(incoming), requestId);
    if (server) {
      contextOf(request).clientIp = () => {
        const peer = server.requestIP(incoming)?.address;
        if (peer === undefined) return "unknown"; // the client has gone
        const fromGateway = request.headers.get(CLIENT_IP_HEADER);
        // Believed only from the gateway's own addresses: TRUSTED_PROXIES says whose
        // X-Forwarded-For counts, not who may name the client.
        if (options.behindGateway && fromGateway && isGateway(peer)) {
          return fromGateway;
        }
        return clientIp(peer, request.headers.get("x-forwarded-for"), isTrusted);
      };
    } else if (!request.headers.has(CLIENT_IP_HEADER)) {
      // Called in-process (tests, an embedded upstream): a given X-Client-Ip stands.
      contextOf(request).clientIp = () =>
        clientIp("127.0.0.1", request.headers.get("x-forwarded-for"), isTrusted);
    }
    let response: Response;
    try {
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > MAX_BODY_BYTES) {
        throw new ApiError("body_too_large", `The body may be at most ${MAX_BODY_BYTES} bytes.`);
      }
      response = await handle(request);
    } catch (error) {
      response = errorResponse(toApiError(error, request), requestId);
    }
    const context = contexts.get(request);
    const route = context?.route ?? "unmatched";
    const seconds = (performance.now() - started) / 1000;
    let status = response.status;
    if (status >= 500 && incoming.signal.aborted) {
      status = CLIENT_CLOSED_REQUEST;
      requestsAborted.inc({ service: context?.service ?? "edge" });
    }
    requestMetrics.record(context?.service ?? "edge", route, incoming.method, status, seconds);
    // One line per request. The path only: a query string may hold a feed key.
    if (log.enabled("info")) {
      log.info("request", {
        request_id: requestId,
        method: incoming.method,
        path: pathOf(incoming.url),
        route,
        status,
        duration_ms: Math.round(seconds * 10_000) / 10,
      });
    }
    return withServiceHeaders(response, requestId);
  };
}

/**
 * The request as the app sees it: with our request id. The headers of a request Bun's server
 * made are set in place (no copy on the hot path); others are copied.
 */
function withRequestId(incoming: Request, requestId: string): Request {
  try {
    incoming.headers.set(REQUEST_ID_HEADER, requestId);
    return incoming;
  } catch {
    const headers = new Headers(incoming.headers);
    headers.set(REQUEST_ID_HEADER, requestId);
    return new Request(incoming, { headers });
  }
}

/** Sets the two headers every response carries, replacing whatever was there. */
export function withServiceHeaders(response: Response, requestId: string): Response {
  const out = withHeader(response, REQUEST_ID_HEADER, requestId);
  out.headers.set("x-service-version", SERVICE_VERSION);
  return out;
}

/**
 * Sets a header on an answer in place. Only an answer whose headers are immutable (a
 * `Response.error()`; fetch answers in runtimes that follow the Fetch standard there, unlike
 * Bun) is copied first: its body stream
 * is handed on, never read.
 */
export function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const out = new Response(response.body, response);
    out.headers.set(name, value);
    return out;
  }
}
