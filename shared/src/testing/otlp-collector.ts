import { createRequire } from "node:module";

/**
 * A trace collector for tests: a real HTTP server on 127.0.0.1 that takes OTLP/HTTP exports at
 * `/v1/traces`, in JSON or in protobuf (decoded with the types generated from the official
 * opentelemetry-proto definitions), and keeps every span.
 */
export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /** How the export that carried it was encoded. */
  encoding: "json" | "protobuf";
}

interface AnyValue {
  stringValue?: string | null;
  intValue?: number | string | { toString(): string } | null;
  boolValue?: boolean | null;
  doubleValue?: number | null;
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface OtlpSpan {
  traceId: string | Uint8Array;
  spanId: string | Uint8Array;
  parentSpanId?: string | Uint8Array;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  links?: { traceId: string | Uint8Array; spanId: string | Uint8Array }[];
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const require = createRequire(import.meta.url);
const proto = require("otlp-proto-definitions/build/src/generated/root.js") as {
  opentelemetry: {
    proto: {
      collector: {
        trace: { v1: { ExportTraceServiceRequest: { decode(bytes: Uint8Array): ExportRequest } } };
      };
    };
  };
};
const ExportTraceServiceRequest =
  proto.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** JSON gives ids as hex; protobuf as bytes. */
function hex(id: string | Uint8Array | null | undefined): string {
  if (id === undefined || id === null) return "";
  return typeof id === "string" ? id : Buffer.from(id).toString("hex");
}

function plainValue(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  // Decoded protobuf gives the members of the `oneof` not set as null, JSON leaves them out.
  if (value.stringValue != null) return value.stringValue;
  if (value.intValue != null) return Number(value.intValue.toString());
  if (value.boolValue != null) return value.boolValue;
  return value.doubleValue ?? undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));
}

export function startOtlpCollector() {
  const spans: CollectedSpan[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (new URL(request.url).pathname !== "/v1/traces")
        return new Response(null, { status: 404 });
      const json = request.headers.get("content-type")?.includes("json") ?? false;
      const body = json
        ? ((await request.json()) as ExportRequest)
        : ExportTraceServiceRequest.decode(new Uint8Array(await request.arrayBuffer()));
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"]);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: hex(span.traceId),
              spanId: hex(span.spanId),
              parentSpanId: hex(span.parentSpanId),
              name: span.name,
              kind: span.kind ?? 0,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map((link) => ({
                traceId: hex(link.traceId),
                spanId: hex(link.spanId),
              })),
              encoding: json ? "json" : "protobuf",
            });
          }
        }
      }
      return json
        ? Response.json({})
        : new Response(new Uint8Array(), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
  return {
    spans,
    /** The value for OTEL_EXPORTER_OTLP_ENDPOINT. */
    endpoint: `http://127.0.0.1:${server.port}`,
    /** The spans of one trace. */
    trace: (traceId: string) => spans.filter((span) => span.traceId === traceId),
    stop: () => server.stop(true),
  };
}
