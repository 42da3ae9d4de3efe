import type { ProcessConfig } from "../config-variables.ts";

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
 * Starts tracing for this process when a collector is named (`sdk.ts`: the SDK, its exporter,
 * W3C trace context, a span per database statement). Without one, not even the SDK's modules
 * are read, and the API stays a no-op. `processName` is the service name unless
 * OTEL_SERVICE_NAME says another. Returns whether tracing is on.
 */
export async function startTracing(config: TracingConfig, processName: string): Promise<boolean> {
  const url = tracesUrl(config);
  if (!url) return false;
  const { startSdk } = await import("./sdk.ts");
  await startSdk(config, processName, url);
  return true;
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
