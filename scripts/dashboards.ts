/**
 * `npm run dashboards`: writes the Grafana dashboards in deploy/observability/dashboards, one per
 * service and one for the whole system, from the metric names `/metrics` serves (see
 * docs/operations.md). `--check` writes nothing and fails when a file is not current.
 */
import { readFileSync, writeFileSync } from "node:fs";

const ROOT = new URL("../", import.meta.url).pathname;
export const DASHBOARD_DIR = "deploy/observability/dashboards";

/** The `service` label each process's requests are counted under. */
export const SERVICE_LABELS: Record<string, string[]> = {
  gateway: ["gateway"],
  "public-read": ["public-read"],
  forms: ["forms"],
  "client-api": ["client-api"],
  webhooks: ["webhooks"],
  workspace: ["workspace", "workspace-web", "workspace-oauth"],
};

interface Query {
  expr: string;
  legend: string;
}

interface Panel {
  title: string;
  unit: string;
  queries: Query[];
  description?: string;
}

/** Grafana's own variable syntax: the data source chosen on the dashboard. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a Grafana variable, not a JavaScript one
const DATASOURCE = { type: "prometheus", uid: "${datasource}" };

/** The RED panels of the services whose `service` label matches `matcher`. */
function redPanels(matcher: string): Panel[] {
  const requests = `http_requests_total{${matcher}}`;
  const buckets = `http_request_duration_seconds_bucket{${matcher}}`;
  return [
    {
      title: "Requests per second by route",
      unit: "reqps",
      queries: [{ expr: `sum by (route) (rate(${requests}[5m]))`, legend: "{{route}}" }],
    },
    {
      title: "Answers by status class",
      unit: "reqps",
      queries: [
        { expr: `sum by (status_class) (rate(${requests}[5m]))`, legend: "{{status_class}}" },
      ],
    },
    {
      title: "Error ratio (5xx)",
      unit: "percentunit",
      queries: [
        {
          expr: `sum(rate(http_requests_total{${matcher},status_class="5xx"}[5m])) / sum(rate(${requests}[5m]))`,
          legend: "5xx",
        },
      ],
    },
    {
      title: "Latency p50 and p99",
      unit: "s",
      queries: [
        {
          expr: `histogram_quantile(0.5, sum by (le) (rate(${buckets}[5m])))`,
          legend: "p50",
        },
        {
          expr: `histogram_quantile(0.99, sum by (le) (rate(${buckets}[5m])))`,
          legend: "p99",
        },
      ],
    },
    {
      title: "Latency p99 by route",
      unit: "s",
      queries: [
        {
          expr: `histogram_quantile(0.99, sum by (route, le) (rate(${buckets}[5m])))`,
          legend: "{{route}}",
        },
      ],
    },
    {
      title: "Clients gone before the answer",
      unit: "reqps",
      queries: [
        {
          expr: `sum(rate(http_requests_aborted_total{${matcher}}[5m]))`,
          legend: "aborted",
        },
      ],
    },
  ];
}

const WEBHOOK_PANELS: Panel[] = [
  {
    title: "Time from transition to delivery (p50, p99)",
    unit: "s",
    queries: [
      {
        expr: "histogram_quantile(0.5, sum by (le) (rate(webhook_delivery_latency_seconds_bucket[5m])))",
        legend: "p50",
      },
      {
        expr: "histogram_quantile(0.99, sum by (le) (rate(webhook_delivery_latency_seconds_bucket[5m])))",
        legend: "p99",
      },
    ],
  },
  {
    title: "Deliveries by outcome",
    unit: "ops",
    queries: [
      {
        expr: "sum by (outcome) (rate(webhook_deliveries_total[5m]))",
        legend: "{{outcome}}",
      },
    ],
  },
  {
    title: "Attempts by outcome",
    unit: "ops",
    queries: [
      {
        expr: "sum by (outcome) (rate(webhook_delivery_attempts_total[5m]))",
        legend: "{{outcome}}",
      },
    ],
  },
  {
    title: "Queue lag: due deliveries not yet claimed",
    unit: "short",
    description: "Every replica reads the same queue: the maximum, not the sum.",
    queries: [
      { expr: "max(webhook_queue_due)", legend: "due" },
      { expr: "max(webhook_deliveries_pending)", legend: "pending (due or not)" },
    ],
  },
  {
    title: "Oldest due delivery's wait",
    unit: "s",
    queries: [{ expr: "max(webhook_queue_oldest_due_seconds)", legend: "oldest due" }],
  },
  {
    title: "Attempts in flight, busiest endpoints",
    unit: "short",
    queries: [
      {
        expr: "topk(10, sum by (endpoint_id) (webhook_attempts_in_flight))",
        legend: "{{endpoint_id}}",
      },
    ],
  },
  {
    title: "Endpoints disabled",
    unit: "short",
    queries: [
      {
        expr: "sum by (reason) (increase(webhook_endpoint_disablements_total[1h]))",
        legend: "{{reason}} (last hour)",
      },
    ],
  },
];

const OUTBOX_PANELS: Panel[] = [
  {
    title: "Outbox age: oldest event not yet published",
    unit: "s",
    queries: [{ expr: "max(outbox_lag_seconds)", legend: "outbox age" }],
  },
];

const GATEWAY_PANELS: Panel[] = [
  {
    title: "Answer cache hit ratio",
    unit: "percentunit",
    queries: [
      {
        expr: 'sum(rate(gateway_answer_cache_lookups_total{outcome="hit"}[5m])) / sum(rate(gateway_answer_cache_lookups_total[5m]))',
        legend: "hits",
      },
    ],
  },
];

const SYSTEM_PANELS: Panel[] = [
  {
    title: "Requests per second by service",
    unit: "reqps",
    queries: [{ expr: "sum by (service) (rate(http_requests_total[5m]))", legend: "{{service}}" }],
  },
  {
    title: "Error ratio (5xx) by service",
    unit: "percentunit",
    queries: [
      {
        expr: 'sum by (service) (rate(http_requests_total{status_class="5xx"}[5m])) / sum by (service) (rate(http_requests_total[5m]))',
        legend: "{{service}}",
      },
    ],
  },
  {
    title: "Latency p99 by service",
    unit: "s",
    queries: [
      {
        expr: "histogram_quantile(0.99, sum by (service, le) (rate(http_request_duration_seconds_bucket[5m])))",
        legend: "{{service}}",
      },
    ],
  },
  {
    title: "Processes up",
    unit: "short",
    description: "Scraped targets answering, by pod label app.kubernetes.io/name.",
    queries: [
      {
        expr: 'sum by (app_kubernetes_io_name) (up{app_kubernetes_io_part_of="newsroom"})',
        legend: "{{app_kubernetes_io_name}}",
      },
    ],
  },
  ...OUTBOX_PANELS,
  ...WEBHOOK_PANELS.slice(0, 5),
];

/** A Grafana dashboard (schema 39) of these panels, two to a row. */
function dashboard(uid: string, title: string, panels: Panel[]): object {
  return {
    uid,
    title,
    tags: ["newsroom"],
    timezone: "utc",
    schemaVersion: 39,
    version: 1,
    editable: true,
    refresh: "30s",
    time: { from: "now-6h", to: "now" },
    templating: {
      list: [
        {
          name: "datasource",
          label: "Prometheus",
          type: "datasource",
          query: "prometheus",
          current: {},
          hide: 0,
        },
      ],
    },
    annotations: { list: [] },
    panels: panels.map((panel, i) => ({
      id: i + 1,
      type: "timeseries",
      title: panel.title,
      ...(panel.description ? { description: panel.description } : {}),
      datasource: DATASOURCE,
      gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
      fieldConfig: { defaults: { unit: panel.unit }, overrides: [] },
      options: { legend: { displayMode: "list", placement: "bottom" } },
      targets: panel.queries.map((query, q) => ({
        refId: String.fromCharCode(65 + q),
        datasource: DATASOURCE,
        expr: query.expr,
        legendFormat: query.legend,
      })),
    })),
  };
}

/** Each dashboard file (path from the root) with its text. */
export function generatedDashboards(): Map<string, string> {
  const files = new Map<string, string>();
  const put = (name: string, board: object) =>
    files.set(`${DASHBOARD_DIR}/${name}.json`, `${JSON.stringify(board, null, 2)}\n`);
  for (const [service, labels] of Object.entries(SERVICE_LABELS)) {
    const matcher =
      labels.length === 1 ? `service="${labels[0]}"` : `service=~"${labels.join("|")}"`;
    const extra =
      service === "webhooks"
        ? WEBHOOK_PANELS
        : service === "workspace"
          ? OUTBOX_PANELS
          : service === "gateway"
            ? GATEWAY_PANELS
            : [];
    put(
      service,
      dashboard(`newsroom-${service}`, `Newsroom / ${service}`, [...redPanels(matcher), ...extra]),
    );
  }
  put("system", dashboard("newsroom-system", "Newsroom / system", SYSTEM_PANELS));
  return files;
}

if (import.meta.main) {
  const check = process.argv.includes("--check");
  const stale: string[] = [];
  for (const [path, text] of generatedDashboards()) {
    let current = "";
    try {
      current = readFileSync(`${ROOT}${path}`, "utf8");
    } catch {}
    if (current === text) continue;
    stale.push(path);
    if (!check) writeFileSync(`${ROOT}${path}`, text);
  }
  if (check && stale.length > 0) {
    console.error(`not current: ${stale.join(", ")}; run \`npm run dashboards\``);
    process.exit(1);
  }
  console.log(stale.length === 0 ? "dashboards are current" : `wrote ${stale.join(", ")}`);
}
