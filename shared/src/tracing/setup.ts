import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { ProcessConfig } from "../config-variables.ts";
import { SERVICE_VERSION } from "../version.ts";
import { traceDatabaseStatements } from "./database.ts";
import { markTracingOn } from "./index.ts";

export type TracingConfig = Pick<
  ProcessConfig,
  | "OTEL_EXPORTER_OTLP_ENDPOINT"
  | "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
  | "OTEL_EXPORTER_OTLP_PROTOCOL"
  | "OTEL_SERVICE_NAME"
  | "OTEL_TRACES_SAMPLER"
  | "OTEL_TRACES_SAMPLER_ARG"
  | "OTEL_RESOURCE_ATTRIBUTES"
>;

/** Where spans go: the traces endpoint as given, else `{endpoint}/v1/traces`; null for none. */
export function tracesUrl(config: TracingConfig): string | null {
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  return `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
}

/**
 * Starts tracing for this process when a collector is named: the SDK, its exporter (protobuf or
 * JSON over HTTP), W3C trace context, and a span per database statement. Without one, nothing is
 * loaded and the API stays a no-op. `processName` is the service name unless OTEL_SERVICE_NAME
 * says another. Returns whether tracing is on.
 */
export async function startTracing(config: TracingConfig, processName: string): Promise<boolean> {
  const url = tracesUrl(config);
  if (!url) return false;
  const exporter = await exporterFor(config.OTEL_EXPORTER_OTLP_PROTOCOL, url);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      ...resourceAttributes(config.OTEL_RESOURCE_ATTRIBUTES),
      [ATTR_SERVICE_NAME]: config.OTEL_SERVICE_NAME ?? processName,
      [ATTR_SERVICE_VERSION]: SERVICE_VERSION,
    }),
    sampler: samplerOf(config),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  traceDatabaseStatements();
  markTracingOn(async () => {
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  });
  return true;
}

async function exporterFor(protocol: string, url: string): Promise<SpanExporter> {
  if (protocol === "http/json") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter({ url });
  }
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter({ url });
}

function samplerOf(config: TracingConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.OTEL_TRACES_SAMPLER_ARG);
  switch (config.OTEL_TRACES_SAMPLER) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio;
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** `key=value,key=value` (values percent-encoded, as the specification says); bad pairs skipped. */
export function resourceAttributes(list: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of (list ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    try {
      attributes[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(
        pair.slice(at + 1).trim(),
      );
    } catch {
      // A malformed escape: the pair is left out.
    }
  }
  return attributes;
}
