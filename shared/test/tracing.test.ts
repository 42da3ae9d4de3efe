import { describe, expect, test } from "bun:test";
import { trace } from "@opentelemetry/api";
import { loadConfig } from "../src/config.ts";
import { ProcessConfig } from "../src/config-variables.ts";
import { edge } from "../src/http/edge.ts";
import { log } from "../src/log.ts";
import { START_BUDGET_MS, startBudget } from "../src/testing/budget.ts";
import { startOtlpCollector } from "../src/testing/otlp-collector.ts";
import { freePort } from "../src/testing/ports.ts";
import { waitForReady } from "../src/testing/servers.ts";
import { operationOf } from "../src/tracing/database.ts";
import {
  activeTraceParent,
  contextFromTraceParent,
  currentTraceIds,
  tracingOn,
} from "../src/tracing/index.ts";
import { resourceAttributes, startTracing, tracesUrl } from "../src/tracing/setup.ts";

const root = new URL("../../", import.meta.url).pathname;

describe("tracing off: no endpoint", () => {
  test("no SDK starts: the API's no-op tracer, no trace ids in logs, nothing stored with a row", async () => {
    const config = loadConfig(ProcessConfig, { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
    expect(tracesUrl(config)).toBeNull();
    expect(await startTracing(config, "test")).toBe(false);
    expect(tracingOn()).toBe(false);
    const span = trace.getTracer("test").startSpan("nothing");
    expect(span.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(span.spanContext())).toBe(false);
    const handler = edge(() => new Response("ok"), { trustedProxies: "" });
    const captured = log.capture();
    try {
      const response = await handler(
        new Request("http://localhost/x", {
          headers: { traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-01` },
        }),
      );
      expect(response.status).toBe(200);
    } finally {
      captured.stop();
    }
    expect(captured.lines.join("\n")).not.toContain("trace_id");
    expect(currentTraceIds()).toBeUndefined();
    expect(activeTraceParent()).toBeNull();
  });

  test(
    "a process without an endpoint exports nothing, even with the other variables set",
    async () => {
      const collector = startOtlpCollector();
      const port = await freePort();
      const child = Bun.spawn([process.execPath, "gateway/src/main.ts"], {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          PORT: String(port),
          LOG_LEVEL: "info",
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_SERVICE_NAME: "no-endpoint",
          OTEL_BSP_SCHEDULE_DELAY: "100",
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      try {
        await waitForReady(`http://127.0.0.1:${port}/health`, START_BUDGET_MS);
        await fetch(`http://127.0.0.1:${port}/health`, {
          headers: { traceparent: `00-${"c".repeat(32)}-${"d".repeat(16)}-01` },
        });
        child.kill("SIGTERM");
        await child.exited;
        const output = await new Response(child.stdout).text();
        expect(output).toContain('"message":"request"');
        expect(output).not.toContain("trace_id");
        expect(collector.spans).toEqual([]);
      } finally {
        child.kill("SIGKILL");
        collector.stop();
      }
    },
    startBudget(),
  );
});

describe("tracing settings", () => {
  test("the traces endpoint: the one given, else the endpoint's /v1/traces", () => {
    const config = (env: Record<string, string>) => loadConfig(ProcessConfig, env);
    expect(tracesUrl(config({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }))).toBe(
      "http://collector:4318/v1/traces",
    );
    expect(
      tracesUrl(
        config({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://other:4318/traces",
        }),
      ),
    ).toBe("http://other:4318/traces");
    expect(() => config({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      "OTEL_EXPORTER_OTLP_PROTOCOL",
    );
    expect(() => config({ OTEL_TRACES_SAMPLER_ARG: "2" })).toThrow("OTEL_TRACES_SAMPLER_ARG");
  });

  test("resource attributes: key=value pairs, percent-decoded, bad pairs left out", () => {
    expect(
      resourceAttributes("deployment.environment=prod, team=news%20desk,bad,=x,k=%E0"),
    ).toEqual({ "deployment.environment": "prod", team: "news desk" });
    expect(resourceAttributes(undefined)).toEqual({});
  });

  test("a statement's operation is its first keyword", () => {
    expect(operationOf('select "id" from "stories" where "id" = $1')).toBe("SELECT");
    expect(operationOf("  with due as (select 1) update x set y = 1")).toBe("WITH");
    expect(operationOf("")).toBe("QUERY");
  });

  test("a stored traceparent that is malformed gives no parent", () => {
    expect(trace.getSpanContext(contextFromTraceParent("00-zz-1"))).toBeUndefined();
    expect(trace.getSpanContext(contextFromTraceParent(null))).toBeUndefined();
  });
});
