import { addressMatcher, clientIp, trustedProxies as parseTrusted } from "../client-ip.ts";
import { ApiError } from "../errors.ts";
import { newRequestId } from "../ids.ts";
import { log } from "../log.ts";
import { requestMetrics, requestsAborted } from "../metrics.ts";
import { endRequestSpan, startRequestSpan, withinRequestSpan } from "../tracing/http.ts";
import { type Span, tracingOn } from "../tracing/index.ts";
import { isUploadPath, UPLOAD_BODY_LIMIT } from "../uploads.ts";
import { compressedAtEdge, edgeEncodingOf } from "./compression.ts";
import { errorResponse, toApiError } from "./error-response.ts";
import {
  CLIENT_IP_HEADER,
  contextOf,
  knownContextOf,
  REQUEST_ID_HEADER,
} from "./request-context.ts";
import { withHeader, withServiceHeaders } from "./service-headers.ts";
import { asGet, isValidHost, pathOf, routable } from "./urls.ts";

const REQUEST_ID_SHAPE = /^req_[A-Za-z0-9_-]{20}$/;

/** The status a request whose client left before the answer is counted under (nginx's). */
const CLIENT_CLOSED_REQUEST = 499;

/** The largest body the service reads (forms set their own, smaller limit; uploads a larger one). */
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
  /**
   * The public edge (the gateway): text answers compressed when the client asks
   * (`compression.ts`); an answer compressed already (a kept one) goes as it is.
   */
  compress?: boolean;
}

/**
 * Whose W3C trace context a request's span continues (`tracing/http.ts`): behind the gateway,
 * every peer's (the gateway and the services; the gateway replaces what the public sent); at
 * the public edge, only a trusted proxy's (TRUSTED_PROXIES), anyone else's is only linked.
 */
function traceContextTrust(
  options: EdgeOptions,
  isTrusted: (address: string) => boolean,
): (incoming: Request, server: Parameters<FetchHandler>[1]) => boolean {
  if (options.behindGateway) return () => true;
  return (incoming, server) => {
    if (!server) return true; // called in-process
    const peer = server.requestIP(incoming)?.address;
    return peer !== undefined && isTrusted(peer);
  };
}

export type FetchHandler = (
  request: Request,
  server?: { requestIP(r: Request): { address: string } | null },
) => Response | Promise<Response>;

/**
 * Wraps an app's `handle` so that every response, whatever produced it, carries `X-Request-Id`
 * and `X-Service-Version`; the app sees the request id as a header and the client address
 * through `clientIpOf`. An answer `handle` gives at once (a route that answers without waiting)
 * is handed back at once, without a promise.
 */
export function edge(
  handle: (request: Request) => Response | Promise<Response>,
  options: EdgeOptions,
): FetchHandler {
  const isTrusted = parseTrusted(options.trustedProxies);
  const isGateway = addressMatcher(options.gatewayAddresses ?? "", "GATEWAY_ADDRESSES");
  const trustsTraceContext = traceContextTrust(options, isTrusted);
  return (incoming, server) => {
    const started = performance.now();
    const traced = tracingOn()
      ? startRequestSpan(incoming, trustsTraceContext(incoming, server))
      : null;
    const span = traced?.span;
    const given = options.behindGateway ? incoming.headers.get(REQUEST_ID_HEADER) : null;
    const requestId = given && REQUEST_ID_SHAPE.test(given) ? given : newRequestId();
    const host = incoming.headers.get("host");
    if (host && !isValidHost(host)) {
      const refused = new ApiError("invalid_parameters", "The Host header is not a valid host.", {
        fields: [{ field: "host", reason: "invalid" }],
      });
      if (span)
        endRequestSpan(span, {
          method: incoming.method,
          route: "unmatched",
          status: 400,
          requestId,
        });
      return withServiceHeaders(errorResponse(refused, requestId), requestId);
    }
    // HEAD answers as GET would (RFC 9110 section 9.3.2), on every route of every app: the app
    // sees a GET, and the body goes on the way out (`headless`).
    const head = incoming.method === "HEAD";
    const request = withRequestId(routable(head ? asGet(incoming) : incoming), requestId);
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
    let answer: Response | Promise<Response>;
    try {
      const length = Number(request.headers.get("content-length") ?? 0);
      const limit = isUploadPath(pathOf(request.url)) ? UPLOAD_BODY_LIMIT : MAX_BODY_BYTES;
      if (length > limit) {
        throw new ApiError("body_too_large", `The body may be at most ${limit} bytes.`);
      }
      answer = traced ? withinRequestSpan(traced, () => handle(request)) : handle(request);
    } catch (error) {
      answer = failureOf(error, request, requestId);
    }
    // The answer as it goes: compressed when asked (at the gateway), without its body to a HEAD.
    const out = (response: Response): Response | Promise<Response> => {
      const encoding = options.compress ? edgeEncodingOf(request, response) : null;
      if (encoding === null && !head)
        return finish(response, incoming, request, requestId, started, span);
      const encoded = encoding ? compressedAtEdge(response, encoding) : response;
      return headless(encoded, head).then((sent) =>
        finish(sent, incoming, request, requestId, started, span),
      );
    };
    if (answer instanceof Promise) {
      return answer.then(out, (error) => out(failureOf(error, request, requestId)));
    }
    return out(answer);
  };
}

/**
 * The answer to a HEAD: the GET's status and headers, `Content-Length` the length of the body
 * the GET would have sent (read here when the answer does not say it), and no body.
 */
async function headless(answer: Response | Promise<Response>, head: boolean): Promise<Response> {
  const response = await answer;
  if (!head) return response;
  // Bun's server dates every answer but a HEAD's.
  const date = response.headers.get("date") ?? new Date().toUTCString();
  if (response.body === null) return withHeader(response, "date", date);
  let length = response.headers.get("content-length");
  if (length === null) length = String((await response.arrayBuffer()).byteLength);
  else await response.body.cancel();
  const headers = new Headers(response.headers);
  headers.set("content-length", length);
  headers.set("date", date);
  return new Response(null, { status: response.status, statusText: response.statusText, headers });
}

function failureOf(error: unknown, request: Request, requestId: string): Response {
  return errorResponse(toApiError(error, request), requestId);
}

/** An answer's bookkeeping: metrics, the request's span and log line, the two headers. */
function finish(
  response: Response,
  incoming: Request,
  request: Request,
  requestId: string,
  started: number,
  span: Span | undefined,
): Response {
  const context = knownContextOf(request);
  const route = context?.route ?? "unmatched";
  const seconds = (performance.now() - started) / 1000;
  let status = response.status;
  if (status >= 500 && incoming.signal.aborted) {
    status = CLIENT_CLOSED_REQUEST;
    requestsAborted.inc({ service: context?.service ?? "edge" });
  }
  const ids = span?.spanContext();
  // A traced request's duration points at its trace (an exemplar, where OpenMetrics is asked).
  const exemplar = ids?.traceFlags ? { trace_id: ids.traceId } : undefined;
  requestMetrics.record(
    context?.service ?? "edge",
    route,
    incoming.method,
    status,
    seconds,
    exemplar,
  );
  if (span) endRequestSpan(span, { method: incoming.method, route, status, requestId });
  // One line per request. The path only: a query string may hold a feed key. Readiness probes
  // (the cluster's start polls 5 times a second, orchestrators every few seconds) only at debug.
  const path = pathOf(incoming.url);
  const level = path === "/health/ready" ? "debug" : "info";
  if (log.enabled(level)) {
    log[level]("request", {
      request_id: requestId,
      method: incoming.method,
      path,
      route,
      status,
      duration_ms: Math.round(seconds * 10_000) / 10,
      ...(ids && { trace_id: ids.traceId, span_id: ids.spanId }),
    });
  }
  return withServiceHeaders(response, requestId);
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
