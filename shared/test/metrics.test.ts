import { expect, test } from "bun:test";
import { Elysia } from "elysia";
import parsePrometheus from "parse-prometheus-text-format";
import { edge } from "../src/http/edge.ts";
import { httpKit } from "../src/http/http-kit.ts";
import {
  attemptEnded,
  attemptStarted,
  formatAsked,
  Histogram,
  metricsPage,
  RequestMetrics,
  readQueueAtScrape,
  serveMetrics,
  webhookAttempts,
} from "../src/metrics.ts";
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
      'http_requests_total{service="metrics-test",route="/v1/things/:id",method="GET",status="200",status_class="2xx"} 3',
    );
    expect(text).toMatch(
      /http_requests_total\{service="edge",route="unmatched",method="GET",status="404",status_class="4xx"\} \d+/,
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
      labels: {
        service: "svc",
        route: "/v1/things/:id",
        method: "GET",
        status: "200",
        status_class: "2xx",
      },
    },
    {
      value: "1",
      labels: {
        service: "svc",
        route: '/odd"route\\',
        method: "OTHER",
        status: "418",
        status_class: "4xx",
      },
    },
    {
      value: "1",
      labels: {
        service: "svc",
        route: "/v1/things/:id",
        method: "HEAD",
        status: "200",
        status_class: "2xx",
      },
    },
    {
      value: "2",
      labels: {
        service: "svc",
        route: "/v1/things/:id",
        method: "GET",
        status: "404",
        status_class: "4xx",
      },
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

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

test("exemplars: the trace of a bucket's latest observation, in OpenMetrics only", () => {
  const metrics = new RequestMetrics();
  metrics.record("svc", "/v1/things/:id", "GET", 200, 0.003, { trace_id: TRACE });
  metrics.record("svc", "/v1/things/:id", "GET", 200, 0.004);
  metrics.record("svc", "/v1/things/:id", "GET", 500, 20, { trace_id: "not a trace id" });
  const open = metrics.exposition("openmetrics").split("\n");
  const bucket = open.find((line) => line.includes('status="200"') && line.includes('le="0.005"'));
  expect(bucket).toMatch(
    new RegExp(
      `^http_request_duration_seconds_bucket\\{.*\\} 2 # \\{trace_id="${TRACE}"\\} 0\\.003 \\d+(\\.\\d+)?$`,
    ),
  );
  // Only the bucket the traced observation fell in; an id that is not one is dropped.
  expect(open.filter((line) => line.includes(" # {"))).toHaveLength(1);
  // The family is named without `_total` in OpenMetrics; its samples keep it.
  expect(open).toContain("# TYPE http_requests counter");
  expect(open.some((line) => line.startsWith("http_requests_total{"))).toBe(true);
  // The Prometheus text format has no exemplars and still parses.
  const plain = metrics.exposition();
  expect(plain).not.toContain("trace_id");
  expect(parsePrometheus(plain).map((family) => family.name)).toContain("http_requests_total");
});

test("a histogram without labels and with its own buckets", () => {
  const latency = new Histogram("test_latency_seconds", "A test histogram.", [1, 10]);
  latency.observe({}, 0.5);
  latency.observe({}, 30, { trace_id: TRACE });
  const lines = latency.exposition("openmetrics").trim().split("\n");
  expect(lines.slice(2)).toEqual([
    'test_latency_seconds_bucket{le="1"} 1',
    'test_latency_seconds_bucket{le="10"} 1',
    expect.stringMatching(
      new RegExp(`^test_latency_seconds_bucket\\{le="\\+Inf"\\} 2 # \\{trace_id="${TRACE}"\\} 30 `),
    ),
    "test_latency_seconds_sum 30.5",
    "test_latency_seconds_count 2",
  ]);
});

test("the scraper's Accept chooses the format; the default stays the Prometheus text", async () => {
  expect(formatAsked(null)).toBe("prometheus");
  expect(formatAsked("text/plain;version=0.0.4;q=0.5,*/*;q=0.1")).toBe("prometheus");
  // What Prometheus sends.
  expect(
    formatAsked(
      "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
    ),
  ).toBe("openmetrics");
  webhookAttempts.inc({ outcome: "retry" });
  const server = serveMetrics(await freePort(), "127.0.0.1");
  try {
    const url = `http://127.0.0.1:${server.port}/metrics`;
    const open = await fetch(url, { headers: { accept: "application/openmetrics-text" } });
    expect(open.headers.get("content-type")).toStartWith("application/openmetrics-text");
    const text = await open.text();
    expect(text).toEndWith("\n# EOF\n");
    expect(text).not.toContain("\n\n");
    expect(text).toContain("# TYPE webhook_delivery_attempts counter");
    expect(text).toMatch(/^webhook_delivery_attempts_total\{outcome="retry"\} \d+$/m);
    // Each family once, none named with `_total` in OpenMetrics.
    const families = [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]);
    expect(new Set(families).size).toBe(families.length);
    expect(families.filter((name) => name?.endsWith("_total"))).toEqual([]);
    // An OpenMetrics scrape leaves the Prometheus page as it was.
    const plain = await (await fetch(url)).text();
    expect(plain).toContain("# TYPE webhook_delivery_attempts_total counter");
    expect(plain).not.toContain("# EOF");
  } finally {
    server.stop(true);
  }
});

test("attempts in flight: one series per endpoint with a request under way, gone at zero", async () => {
  attemptStarted("endpoint-a");
  attemptStarted("endpoint-a");
  attemptStarted("endpoint-b");
  attemptEnded("endpoint-b");
  let page = await metricsPage("prometheus");
  expect(page).toContain('webhook_attempts_in_flight{endpoint_id="endpoint-a"} 2');
  expect(page).not.toContain('endpoint_id="endpoint-b"');
  attemptEnded("endpoint-a");
  attemptEnded("endpoint-a");
  page = await metricsPage("prometheus");
  expect(page).not.toContain('endpoint_id="endpoint-a"');
});

test("the queue gauges are read once per scrape from the reader, and stop with it", async () => {
  // Only the webhooks service reads the queue: no other page shows the gauges.
  expect(await metricsPage("prometheus")).not.toContain("webhook_queue_due");
  let reads = 0;
  const stop = readQueueAtScrape(async () => {
    reads += 1;
    return { due: 7, oldestDueSeconds: 42.5 };
  });
  try {
    const page = await metricsPage("prometheus");
    expect(page).toMatch(/^webhook_queue_due 7$/m);
    expect(page).toMatch(/^webhook_queue_oldest_due_seconds 42\.5$/m);
    expect(reads).toBe(1);
  } finally {
    stop();
  }
  // A failing reader leaves the gauges as they were; the page still answers.
  const stopFailing = readQueueAtScrape(async () => {
    throw new Error("database down");
  });
  try {
    expect(await metricsPage("prometheus")).toMatch(/^webhook_queue_due 7$/m);
  } finally {
    stopFailing();
  }
  expect(await metricsPage("prometheus")).not.toContain("webhook_queue");
});
