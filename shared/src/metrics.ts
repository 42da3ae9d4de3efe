import { Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * Prometheus metrics of this process, served on the internal METRICS_PORT at /metrics.
 * Labels use route templates (`/v1/stories/:id`), never raw paths, to keep cardinality bounded.
 */
export const registry = new Registry();

export const httpRequests = new Counter({
  name: "http_requests_total",
  help: "HTTP requests answered, by service, route template, method and status.",
  labelNames: ["service", "route", "method", "status"] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: "http_request_duration_seconds",
  help: "Time to answer HTTP requests, by service, route template, method and status.",
  labelNames: ["service", "route", "method", "status"] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: "webhook_delivery_attempts_total",
  help: "Webhook delivery attempts, by outcome (delivered, retry, failed, test).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

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
  return Bun.serve({
    port,
    hostname,
    fetch: async (request) =>
      new URL(request.url).pathname === "/metrics"
        ? new Response(await registry.metrics(), {
            headers: { "content-type": registry.contentType },
          })
        : new Response("not found", { status: 404 }),
  });
}
