import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { SERVICE_VERSION } from "../version.ts";

/**
 * Traces over OpenTelemetry's API. Without OTEL_EXPORTER_OTLP_ENDPOINT no SDK is loaded: the
 * API's no-op tracer answers, and every seam checks `tracingOn()` before it does any work
 * (`setup.ts` turns it on). Span attributes never hold a key, a token, a secret, an email
 * address, a query string, a body or a statement's parameter values.
 */
let on = false;
let stopHook: (() => Promise<void>) | null = null;

export type { Attributes, Context, Span };
export { SpanKind, SpanStatusCode };

/** Whether spans are recorded and exported in this process. */
export function tracingOn(): boolean {
  return on;
}

/** Called by `setup.ts` once its SDK is registered, with the way to flush and stop it. */
export function markTracingOn(stop: () => Promise<void>): void {
  on = true;
  stopHook = stop;
}

/** Flushes the spans not exported yet and stops the exporter (a graceful stop's last step). */
export async function stopTracing(): Promise<void> {
  const stop = stopHook;
  on = false;
  cachedTracer = null;
  stopHook = null;
  await stop?.().catch(() => undefined);
}

let cachedTracer: Tracer | null = null;

/** This process's tracer: the SDK's once tracing is on, the API's no-op one before. */
export function tracer(): Tracer {
  if (!on) return trace.getTracer("newsroom-service", SERVICE_VERSION);
  cachedTracer ??= trace.getTracer("newsroom-service", SERVICE_VERSION);
  return cachedTracer;
}

/** The active span's ids, for a log line or a metric's exemplar; undefined without one. */
export function currentTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!on) return undefined;
  const span = trace.getActiveSpan()?.spanContext();
  if (!span || !trace.isSpanContextValid(span)) return undefined;
  return { trace_id: span.traceId, span_id: span.spanId };
}

/** What `propagation` reads from and writes to: header names to values. */
interface Carrier {
  get(name: string): string | null | undefined;
  set(name: string, value: string): void;
}

const carrierAccess = {
  get: (carrier: Carrier, key: string) => carrier.get(key) ?? undefined,
  set: (carrier: Carrier, key: string, value: string) => carrier.set(key, value),
  keys: () => ["traceparent", "tracestate"],
};

/** The trace context that headers (HTTP or NATS) carry, on top of `base`. */
export function contextFromHeaders(headers: Carrier, base: Context = ROOT_CONTEXT): Context {
  return propagation.extract(base, headers, carrierAccess);
}

/** Writes the active trace context (`traceparent`, `tracestate`) into headers. */
export function injectTraceHeaders(headers: Carrier, from: Context = context.active()): void {
  propagation.inject(from, headers, carrierAccess);
}

/** The active span as one `traceparent` value, to be stored beside a row; null without one. */
export function activeTraceParent(): string | null {
  if (!on) return null;
  const carrier = new Map<string, string>();
  propagation.inject(context.active(), carrier, carrierAccess);
  return carrier.get("traceparent") ?? null;
}

/** The context a stored `traceparent` names (the root context for null or a malformed value). */
export function contextFromTraceParent(traceParent: string | null | undefined): Context {
  if (!traceParent) return ROOT_CONTEXT;
  return contextFromHeaders(new Map([["traceparent", traceParent]]) as unknown as Carrier);
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; the active context when left out. */
  parent?: Context;
  links?: Link[];
}

/**
 * Runs `work` inside a new span (the active one while it runs) and ends it when `work` settles;
 * a throw marks the span as an error and goes on. Without tracing, `work` runs alone.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!on) return work(undefined);
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      attributes: options.attributes,
      links: options.links,
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span as failed, with the error's class name only (a message may hold a value). */
export function failSpan(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute("error.type", error instanceof Error ? error.name : typeof error);
}

/** Runs `work` with `parent` as the active context: the spans it starts are that trace's. */
export function withParent<T>(parent: Context, work: () => T): T {
  if (!on) return work();
  return context.with(parent, work);
}

/** Runs `work` outside any trace: a background pass, even when a request's work kicked it. */
export function outsideAnyTrace<T>(work: () => T): T {
  return withParent(ROOT_CONTEXT, work);
}
