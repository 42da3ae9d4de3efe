import { Counter, Gauge, Registry } from "prom-client";
import { SERVER_SAFETY } from "./http/server-safety.ts";
import { pathOf } from "./http/urls.ts";
import { serveOn } from "./startup.ts";

/**
 * Prometheus metrics of this process, served on the internal METRICS_PORT at /metrics.
 * Labels use route templates (`/v1/stories/:id`), never raw paths, to keep cardinality bounded.
 */
export const registry = new Registry();

/** Upper bounds of the request-duration buckets, in seconds. */
const DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Any other method counts as OTHER. */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

interface RequestSeries {
  labels: string;
  count: number;
  sum: number;
  /** Per bucket, the requests that fell in it (not cumulative; summed when written). */
  buckets: number[];
}

/**
 * `http_requests_total` and `http_request_duration_seconds` by service, route template, method
 * and status. Kept as plain numbers per series and written at scrape: prom-client hashes the
 * labels on every call, which costs more than answering a cached public read.
 */
export class RequestMetrics {
  /**
   * By service, route, then method and status: each level a lookup of a string the caller
   * already holds (a key joined from the four would be built and hashed on every request).
   */
  private readonly byService = new Map<string, Map<string, Map<number, RequestSeries>>>();
  private readonly series: RequestSeries[] = [];

  record(service: string, route: string, method: string, status: number, seconds: number): void {
    let routes = this.byService.get(service);
    if (!routes) {
      routes = new Map();
      this.byService.set(service, routes);
    }
    let answers = routes.get(route);
    if (!answers) {
      answers = new Map();
      routes.set(route, answers);
    }
    const verb = METHODS.indexOf(method);
    const answerKey = status * 16 + verb + 1;
    let series = answers.get(answerKey);
    if (!series) {
      const labels = `service="${labelValue(service)}",route="${labelValue(route)}",method="${METHODS[verb] ?? "OTHER"}",status="${status}"`;
      series = { labels, count: 0, sum: 0, buckets: DURATION_BUCKETS.map(() => 0) };
      answers.set(answerKey, series);
      this.series.push(series);
    }
    series.count += 1;
    series.sum += seconds;
    for (let bucket = 0; bucket < DURATION_BUCKETS.length; bucket++) {
      if (seconds <= DURATION_BUCKETS[bucket]!) {
        series.buckets[bucket]! += 1;
        return;
      }
    }
  }

  /** The Prometheus text format of both metrics. */
  exposition(): string {
    const counter = [
      "# HELP http_requests_total HTTP requests answered, by service, route template, method and status.",
      "# TYPE http_requests_total counter",
    ];
    const histogram = [
      "# HELP http_request_duration_seconds Time to answer HTTP requests, by service, route template, method and status.",
      "# TYPE http_request_duration_seconds histogram",
    ];
    for (const { labels, count, sum, buckets } of this.series) {
      counter.push(`http_requests_total{${labels}} ${count}`);
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += buckets[i]!;
        histogram.push(
          `http_request_duration_seconds_bucket{${labels},le="${bound}"} ${cumulative}`,
        );
      });
      histogram.push(`http_request_duration_seconds_bucket{${labels},le="+Inf"} ${count}`);
      histogram.push(`http_request_duration_seconds_sum{${labels}} ${sum}`);
      histogram.push(`http_request_duration_seconds_count{${labels}} ${count}`);
    }
    return `${counter.join("\n")}\n\n${histogram.join("\n")}\n`;
  }
}

/** A label value in the text format: backslash, double quote and newline escaped. */
function labelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

export const requestMetrics = new RequestMetrics();

export const requestsAborted = new Counter({
  name: "http_requests_aborted_total",
  help: "Requests whose client closed the connection before the answer (status 499 in http_requests_total), by service.",
  labelNames: ["service"] as const,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: "webhook_delivery_attempts_total",
  help: "Webhook delivery attempts, by outcome (delivered, retry, failed, test).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

/** The answer cache's lookups, counted as plain numbers and written at scrape (as above). */
const lookupCounts = { hit: 0, miss: 0 };

export const answerCacheLookups = new Counter({
  name: "gateway_answer_cache_lookups_total",
  help: "Public reads the gateway's answer cache could answer, by outcome (hit, miss).",
  labelNames: ["outcome"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [outcome, count] of Object.entries(lookupCounts)) this.labels(outcome).inc(count);
  },
});

/** Counts one lookup of the gateway's answer cache. */
export function countAnswerCacheLookup(outcome: keyof typeof lookupCounts): void {
  lookupCounts[outcome] += 1;
}

export const outboxLag = new Gauge({
  name: "outbox_lag_seconds",
  help: "Age of the oldest outbox event not yet published to the bus.",
  registers: [registry],
});

export const consumerPending = new Gauge({
  name: "webhook_deliveries_pending",
  help: "Webhook deliveries waiting for an attempt.",
  registers: [registry],
});

/** Serves /metrics on its own port (not behind the gateway). */
export function serveMetrics(port: number, hostname = "0.0.0.0") {
  return serveOn("METRICS_PORT", {
    ...SERVER_SAFETY,
    port,
    hostname,
    fetch: async (request) =>
      pathOf(request.url) === "/metrics"
        ? new Response(`${await registry.metrics()}\n${requestMetrics.exposition()}`, {
            headers: { "content-type": registry.contentType },
          })
        : new Response("not found", { status: 404 }),
  });
}
