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
import { SERVICE_VERSION } from "../version.ts";
import { traceDatabaseStatements } from "./database.ts";
import { markTracingOn } from "./index.ts";
import { resourceAttributes, type TracingConfig } from "./setup.ts";

/**
 * The SDK for this process: its exporter (protobuf or JSON over HTTP to `url`), the sampler, W3C
 * trace context, and a span per database statement. Read only when tracing is on (`setup.ts`).
 */
export async function startSdk(
  config: TracingConfig,
  processName: string,
  url: string,
): Promise<void> {
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
