import { expect, test } from "bun:test";
import { Elysia } from "elysia";
import parsePrometheus from "parse-prometheus-text-format";
import { edge } from "../src/http/edge.ts";
import { httpKit } from "../src/http/http-kit.ts";
import { RequestMetrics, serveMetrics, webhookAttempts } from "../src/metrics.ts";
import { freePort } from "../src/testing/ports.ts";

test("/metrics on its own port counts requests by route template and status", async () => {
  const kit = httpKit("metrics-test");
  const app = new Elysia().use(kit).get("/v1/things/:id", ({ params }) => ({ id: params.id }));
  kit.bindRoutes(app);
  const handle = edge((request) => app.handle(request), { trustedProxies: "" });
  for (const id of ["a", "b", "c"]) await handle(new Request(`http://localhost/v1/things/${id}`));
  await handle(new Request("http://localhost/nowhere"));
  webhookAttempts.inc({ outcome: "delivered" });

  const server = serveMetrics(await freePort(), "127.0.0.1");
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toContain(
      'http_requests_total{service="metrics-test",route="/v1/things/:id",method="GET",status="200"} 3',
    );
    expect(text).toMatch(
      /http_requests_total\{service="edge",route="unmatched",method="GET",status="404"\} \d+/,
    );
    expect(text).toContain("http_request_duration_seconds_bucket");
    expect(text).toMatch(/webhook_delivery_attempts_total\{outcome="delivered"\} \d+/);
    expect(text).toContain("outbox_lag_seconds");
    expect(text).toContain("webhook_deliveries_pending");
    expect(text).not.toContain("/v1/things/a");
    // The whole page parses as the Prometheus text format, each family once.
    const names = parsePrometheus(text).map((family) => family.name);
    expect(names).toContain("http_request_duration_seconds");
    expect(new Set(names).size).toBe(names.length);
  } finally {
    server.stop(true);
  }
});

test("request counts and durations read back through a Prometheus parser", () => {
  const metrics = new RequestMetrics();
  for (const seconds of [0.001, 0.004, 0.004, 0.3, 12]) {
    metrics.record("svc", "/v1/things/:id", "GET", 200, seconds);
  }
  metrics.record("svc", '/odd"route\\', "BREW", 418, 0.02);
  // Another method or status on the same route is a series of its own.
  metrics.record("svc", "/v1/things/:id", "HEAD", 200, 0.001);
  metrics.record("svc", "/v1/things/:id", "GET", 404, 0.001);
  metrics.record("svc", "/v1/things/:id", "GET", 404, 0.001);
  const families = parsePrometheus(metrics.exposition());

  const counter = families.find((family) => family.name === "http_requests_total");
  expect(counter?.type).toBe("COUNTER");
  expect(counter?.metrics).toEqual([
    {
      value: "5",
      labels: { service: "svc", route: "/v1/things/:id", method: "GET", status: "200" },
    },
    {
      value: "1",
      labels: { service: "svc", route: '/odd"route\\', method: "OTHER", status: "418" },
    },
    {
      value: "1",
      labels: { service: "svc", route: "/v1/things/:id", method: "HEAD", status: "200" },
    },
    {
      value: "2",
      labels: { service: "svc", route: "/v1/things/:id", method: "GET", status: "404" },
    },
  ]);

  // The parser folds a histogram's labelled series together, so read its samples untyped.
  const samples = parsePrometheus(metrics.exposition().replace(/^# TYPE .* histogram$/m, ""));
  const sample = (name: string, le?: string) =>
    samples
      .find((family) => family.name === name)
      ?.metrics.find(
        (series) =>
          series.labels?.route === "/v1/things/:id" &&
          series.labels?.method === "GET" &&
          series.labels?.status === "200" &&
          series.labels?.le === le,
      )?.value;
  expect(sample("http_request_duration_seconds_count")).toBe("5");
  expect(Number(sample("http_request_duration_seconds_sum"))).toBeCloseTo(12.309, 6);
  // Cumulative: each bucket counts every request at or under its bound.
  const buckets = { "0.002": "1", "0.005": "3", "0.25": "3", "0.5": "4", "10": "4", "+Inf": "5" };
  for (const [le, count] of Object.entries(buckets)) {
    expect(sample("http_request_duration_seconds_bucket", le), le).toBe(count);
  }
});
