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

/** The two exposition formats served at /metrics. */
export type MetricsFormat = "prometheus" | "openmetrics";

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
export const OPENMETRICS_CONTENT_TYPE =
  "application/openmetrics-text; version=1.0.0; charset=utf-8";

/** The trace an observation belongs to, written as an OpenMetrics exemplar. */
export interface Exemplar {
  trace_id: string;
}

/** An exemplar's trace id: W3C trace context's 32 lowercase hex digits, nothing else. */
const TRACE_ID_SHAPE = /^[0-9a-f]{32}$/;

interface KeptExemplar {
  traceId: string;
  value: number;
  /** Unix time in seconds. */
  at: number;
}

/** One labelled series of a histogram: per bucket the observations in it (not cumulative). */
export class HistogramSeries {
  count = 0;
  sum = 0;
  readonly buckets: number[];
  /** Per bucket (and +Inf last), the latest observation that came with a trace. */
  private exemplars: (KeptExemplar | undefined)[] | null = null;

  constructor(
    /** The series' labels as written: `a="x",b="y"`. */
    readonly labels: string,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = bounds.map(() => 0);
  }

  observe(value: number, exemplar?: Exemplar): void {
    this.count += 1;
    this.sum += value;
    const bounds = this.bounds;
    let bucket = 0;
    for (; bucket < bounds.length; bucket++) {
      if (value <= bounds[bucket]!) {
        this.buckets[bucket]! += 1;
        break;
      }
    }
    if (exemplar !== undefined) this.keep(exemplar, value, bucket);
  }

  /** Keeps the exemplar as its bucket's latest (the last index is +Inf). */
  private keep(exemplar: Exemplar, value: number, bucket: number): void {
    if (!TRACE_ID_SHAPE.test(exemplar.trace_id)) return;
    this.exemplars ??= [];
    this.exemplars[bucket] = { traceId: exemplar.trace_id, value, at: Date.now() / 1000 };
  }

  /** The `_bucket`, `_sum` and `_count` lines; exemplars only in OpenMetrics. */
  lines(name: string, format: MetricsFormat): string[] {
    const out: string[] = [];
    const withExemplar = (line: string, bucket: number) => {
      const kept = format === "openmetrics" ? this.exemplars?.[bucket] : undefined;
      return kept ? `${line} # {trace_id="${kept.traceId}"} ${kept.value} ${kept.at}` : line;
    };
    const before = this.labels ? `${this.labels},` : "";
    const labelled = this.labels ? `{${this.labels}}` : "";
    let cumulative = 0;
    this.bounds.forEach((bound, i) => {
      cumulative += this.buckets[i]!;
      out.push(withExemplar(`${name}_bucket{${before}le="${bound}"} ${cumulative}`, i));
    });
    const inf = `${name}_bucket{${before}le="+Inf"} ${this.count}`;
    out.push(withExemplar(inf, this.bounds.length));
    out.push(`${name}_sum${labelled} ${this.sum}`);
    out.push(`${name}_count${labelled} ${this.count}`);
    return out;
  }
}

/**
 * A histogram whose series are kept as plain numbers and written at scrape (see
 * `RequestMetrics`), so that an observation may carry an exemplar. Its series are made by the
 * caller from bounded label values.
 */
export class Histogram {
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  /** The series of these labels, made on first use. */
  of(labels: Record<string, string>): HistogramSeries {
    const written = Object.entries(labels)
      .map(([label, value]) => `${label}="${labelValue(value)}"`)
      .join(",");
    let found = this.series.get(written);
    if (!found) {
      found = new HistogramSeries(written, this.bounds);
      this.series.set(written, found);
    }
    return found;
  }

  observe(labels: Record<string, string>, value: number, exemplar?: Exemplar): void {
    this.of(labels).observe(value, exemplar);
  }

  exposition(format: MetricsFormat): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const series of this.series.values()) lines.push(...series.lines(this.name, format));
    return `${lines.join("\n")}\n`;
  }
}

/** `2xx` for 204: the label alerts and dashboards group answers by. */
function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * `http_requests_total` and `http_request_duration_seconds` by service, route template, method,
 * status and status class. Kept as plain numbers per series and written at scrape: prom-client
 * hashes the labels on every call, which costs more than answering a cached public read.
 */
export class RequestMetrics {
  /**
   * By service, route, then method and status: each level a lookup of a string the caller
   * already holds (a key joined from the four would be built and hashed on every request).
   */
  private readonly byService = new Map<string, Map<string, Map<number, HistogramSeries>>>();
  private readonly series: HistogramSeries[] = [];

  record(
    service: string,
    route: string,
    method: string,
    status: number,
    seconds: number,
    exemplar?: Exemplar,
  ): void {
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
      const labels = `service="${labelValue(service)}",route="${labelValue(route)}",method="${METHODS[verb] ?? "OTHER"}",status="${status}",status_class="${statusClass(status)}"`;
      series = new HistogramSeries(labels, DURATION_BUCKETS);
      answers.set(answerKey, series);
      this.series.push(series);
    }
    series.observe(seconds, exemplar);
  }

  /** Both metrics in the Prometheus text format (the default) or OpenMetrics. */
  exposition(format: MetricsFormat = "prometheus"): string {
    const counterName = format === "openmetrics" ? "http_requests" : "http_requests_total";
    const counter = [
      `# HELP ${counterName} HTTP requests answered, by service, route template, method and status.`,
      `# TYPE ${counterName} counter`,
    ];
    const histogram = [
      "# HELP http_request_duration_seconds Time to answer HTTP requests, by service, route template, method and status.",
      "# TYPE http_request_duration_seconds histogram",
    ];
    for (const series of this.series) {
      counter.push(`http_requests_total{${series.labels}} ${series.count}`);
      histogram.push(...series.lines("http_request_duration_seconds", format));
    }
    const gap = format === "openmetrics" ? "\n" : "\n\n";
    return `${counter.join("\n")}${gap}${histogram.join("\n")}\n`;
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

export const webhookDeliveries = new Counter({
  name: "webhook_deliveries_total",
  help: "Webhook deliveries ended, by outcome (delivered, failed: no attempt left or the receiver answered 410).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const webhookEndpointDisablements = new Counter({
  name: "webhook_endpoint_disablements_total",
  help: "Webhook endpoints the service disabled, by reason (failing: deliveries failed in a row; gone: the receiver answered 410).",
  labelNames: ["reason"] as const,
  registers: [registry],
});

/** Upper bounds of the transition-to-delivery buckets, in seconds: retries run for hours. */
const DELIVERY_LATENCY_BUCKETS = [
  0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400,
];

/** From the story's transition (the event's occurrence) to its 2xx answer. */
export const webhookDeliveryLatency = new Histogram(
  "webhook_delivery_latency_seconds",
  "Time from a story's transition to the webhook delivery's 2xx answer.",
  DELIVERY_LATENCY_BUCKETS,
);

/** Requests to one endpoint under way in this process; its series goes when none is left. */
const attemptsInFlight = new Map<string, number>();

/**
 * One series per endpoint with a request under way, none for the others: a process has at most
 * its delivery concurrency (64) of them at once.
 */
export const webhookAttemptsInFlight = new Gauge({
  name: "webhook_attempts_in_flight",
  help: "Webhook requests under way in this process, by endpoint id (only endpoints with one under way).",
  labelNames: ["endpoint_id"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [endpointId, n] of attemptsInFlight) this.labels(endpointId).set(n);
  },
});

/** Counts a request to this endpoint as under way until `attemptEnded`. */
export function attemptStarted(endpointId: string): void {
  attemptsInFlight.set(endpointId, (attemptsInFlight.get(endpointId) ?? 0) + 1);
}

export function attemptEnded(endpointId: string): void {
  const left = (attemptsInFlight.get(endpointId) ?? 1) - 1;
  if (left > 0) attemptsInFlight.set(endpointId, left);
  else attemptsInFlight.delete(endpointId);
}

/** The delivery queue as a scrape reads it. */
export interface QueueReading {
  /** Pending deliveries that are due and no worker holds. */
  due: number;
  /** How long the oldest of them has been due; 0 when none is. */
  oldestDueSeconds: number;
}

let queueReader: (() => Promise<QueueReading>) | null = null;
/** One reading serves both gauges of a scrape (and scrapes within a second of it). */
let lastReading: { at: number; reading: Promise<QueueReading | null> } | null = null;

/**
 * Reads the delivery queue with `read` at each scrape (the webhooks service), whose page alone
 * shows the queue gauges; returns the function that stops it.
 */
export function readQueueAtScrape(read: () => Promise<QueueReading>): () => void {
  queueReader = read;
  lastReading = null;
  for (const [name, gauge] of queueGauges()) {
    if (!registry.getSingleMetric(name)) registry.registerMetric(gauge);
  }
  return () => {
    if (queueReader !== read) return;
    queueReader = null;
    for (const [name] of queueGauges()) registry.removeSingleMetric(name);
  };
}

const queueGauges = () =>
  [
    ["webhook_queue_due", webhookQueueDue],
    ["webhook_queue_oldest_due_seconds", webhookQueueOldestDue],
  ] as const;

async function queueReading(): Promise<QueueReading | null> {
  const read = queueReader;
  if (!read) return null;
  const now = Date.now();
  if (!lastReading || now - lastReading.at > 1_000) {
    // A failed read leaves the gauges as they were; the scrape still answers.
    lastReading = { at: now, reading: read().catch(() => null) };
  }
  return lastReading.reading;
}

export const webhookQueueDue = new Gauge({
  name: "webhook_queue_due",
  help: "Webhook deliveries due and not yet claimed by a worker (the queue lag the autoscaler reads).",
  registers: [],
  async collect() {
    const reading = await queueReading();
    if (reading) this.set(reading.due);
  },
});

export const webhookQueueOldestDue = new Gauge({
  name: "webhook_queue_oldest_due_seconds",
  help: "How long the oldest due, unclaimed webhook delivery has waited since it became due.",
  registers: [],
  async collect() {
    const reading = await queueReading();
    if (reading) this.set(reading.oldestDueSeconds);
  },
});

/** The scraper's choice: OpenMetrics when its Accept names it, else the Prometheus text format. */
export function formatAsked(accept: string | null): MetricsFormat {
  return accept?.includes("application/openmetrics-text") ? "openmetrics" : "prometheus";
}

/**
 * prom-client's Prometheus text as OpenMetrics: a counter's family is named without `_total`
 * (its samples keep it), no blank lines. prom-client's own OpenMetrics mode renames the
 * counters in place, which would change the Prometheus page after it.
 */
function asOpenMetrics(text: string): string {
  const counters = new Set(
    [...text.matchAll(/^# TYPE (\S+)_total counter$/gm)].map((match) => match[1]!),
  );
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const family = /^# (HELP|TYPE) (\S+)_total /.exec(line);
      return family && counters.has(family[2]!)
        ? line.replace(`${family[2]}_total `, `${family[2]} `)
        : line;
    })
    .join("\n");
}

/** Every metric of this process, in the format asked. */
export async function metricsPage(format: MetricsFormat): Promise<string> {
  const ours = `${requestMetrics.exposition(format)}${webhookDeliveryLatency.exposition(format)}`;
  const theirs = await registry.metrics();
  if (format === "prometheus") return `${theirs}\n${ours}`;
  return `${asOpenMetrics(theirs)}\n${ours}# EOF\n`;
}

/** Serves /metrics on its own port (not behind the gateway). */
export function serveMetrics(port: number, hostname = "0.0.0.0") {
  return serveOn("METRICS_PORT", {
    ...SERVER_SAFETY,
    port,
    hostname,
    fetch: async (request) => {
      if (pathOf(request.url) !== "/metrics") return new Response("not found", { status: 404 });
      const format = formatAsked(request.headers.get("accept"));
      return new Response(await metricsPage(format), {
        headers: {
          "content-type":
            format === "openmetrics" ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_CONTENT_TYPE,
        },
      });
    },
  });
}
