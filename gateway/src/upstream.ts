import { CLIENT_IP_HEADER, clientIpOf } from "@newsroom/shared/http/request-context";
import { targetOf } from "@newsroom/shared/http/urls";
import { log } from "@newsroom/shared/log";
import { injectTraceHeaders, tracingOn } from "@newsroom/shared/tracing/index";

/** Something that answers requests for a service: its app in-process, or its URL. */
export type Upstream = (request: Request) => Promise<Response>;

/** How the gateway sends a request on: `fetch` (a test may record what it gives). */
export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Distributed mode: forwards the request to the service's base URL, redirects untouched. The
 * answer is the service's, handed on as fetch gives it: its body streams through, and Bun's fetch
 * answers have mutable headers, so the edge and the gateway add theirs in place. fetch keeps
 * connections to the service alive and reuses them.
 */
export function httpUpstream(baseUrl: string, name: string, send: Fetcher = fetch): Upstream {
  const base = baseUrl.replace(/\/$/, "");
  return async (request) => {
    const headers = new Headers(request.headers);
    // The service sees its own address as Host; the public one (the edge checked its shape)
    // travels as X-Forwarded-Host.
    const host = request.headers.get("host");
    if (host) headers.set("x-forwarded-host", host);
    else headers.delete("x-forwarded-host");
    headers.set("x-forwarded-proto", request.url.startsWith("https:") ? "https" : "http");
    // The address the edge found, never one the client sent.
    headers.set(CLIENT_IP_HEADER, clientIpOf(request));
    headers.delete("host");
    headers.delete("connection");
    // The services continue whatever trace context they are given: the gateway's request span's,
    // never one the client sent (the edge decided whether to continue that one).
    headers.delete("traceparent");
    headers.delete("tracestate");
    if (tracingOn()) injectTraceHeaders(headers);
    try {
      return await send(base + targetOf(request.url), {
        method: request.method,
        headers,
        body: request.method === "GET" || request.method === "HEAD" ? undefined : request.body,
        redirect: "manual",
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      // The client left and its body with it: not the service's fault (the edge counts it).
      if (request.signal.aborted) throw error;
      log.error("upstream unreachable", {
        service: name,
        request_id: request.headers.get("x-request-id"),
        error: error instanceof Error ? error.message : String(error),
      });
      throw new UpstreamUnavailable(name);
    }
  };
}

export class UpstreamUnavailable extends Error {
  constructor(readonly service: string) {
    super(`${service} is unreachable`);
  }
}
