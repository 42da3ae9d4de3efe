import { type Context, context, type Link, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { pathOf } from "../http/urls.ts";
import { contextFromHeaders, type Span, SpanKind, SpanStatusCode, tracer } from "./index.ts";

/** The span of one request at the edge, and the context the app's work runs in. */
export interface RequestSpan {
  span: Span;
  context: Context;
}

/**
 * Starts the server span of a request. The caller's W3C trace context (`traceparent`,
 * `tracestate`) is its parent when `trusted` (a peer behind our gateway, or a trusted proxy at
 * the public edge); an untrusted caller's is only linked, so that the public can neither choose
 * a trace nor ask for it to be kept. Only the path is recorded: a query string may hold a key.
 */
export function startRequestSpan(request: Request, trusted: boolean): RequestSpan {
  let parent: Context = ROOT_CONTEXT;
  let links: Link[] | undefined;
  if (request.headers.has("traceparent")) {
    const given = contextFromHeaders(request.headers);
    if (trusted) parent = given;
    else {
      const linked = trace.getSpanContext(given);
      if (linked && trace.isSpanContextValid(linked)) links = [{ context: linked }];
    }
  }
  const span = tracer().startSpan(
    request.method,
    {
      kind: SpanKind.SERVER,
      links,
      attributes: {
        "http.request.method": request.method,
        "url.path": pathOf(request.url),
        "url.scheme": request.url.startsWith("https:") ? "https" : "http",
      },
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/** Names the span after its route (`GET /v1/stories/:id`) and ends it with the answer's status. */
export function endRequestSpan(
  span: Span,
  answer: { method: string; route: string; status: number; requestId: string },
): void {
  span.updateName(`${answer.method} ${answer.route}`);
  span.setAttributes({
    "http.route": answer.route,
    "http.response.status_code": answer.status,
    "newsroom.request_id": answer.requestId,
  });
  if (answer.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Runs the app's work with the request's span active (its logs, statements and calls join it). */
export function withinRequestSpan<T>(traced: RequestSpan, work: () => T): T {
  return context.with(traced.context, work);
}
