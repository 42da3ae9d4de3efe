import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { DASHBOARD_DIR, generatedDashboards } from "../scripts/dashboards.ts";
import {
  metricsPage,
  readQueueAtScrape,
  requestMetrics,
  serveMetrics,
} from "../shared/src/metrics.ts";
import { freePort } from "../shared/src/testing/ports.ts";

const root = new URL("../", import.meta.url).pathname;
const read = (path: string) => readFileSync(root + path, "utf8");
const RULES = "deploy/observability/rules/newsroom.rules.yaml";
const RULE_TESTS = "deploy/observability/rules/newsroom.rules.test.yaml";
const ADAPTER = "deploy/observability/prometheus-adapter.yaml";

/** Series Prometheus itself (`up`) and kube-state-metrics make, not a newsroom process. */
const EXTERNAL_SERIES = [
  "up",
  "kube_deployment_status_replicas_available",
  "kube_deployment_spec_replicas",
];

/** PromQL's functions, aggregations and keywords the rules and dashboards use. */
const PROMQL_WORDS = new Set([
  "sum",
  "max",
  "min",
  "avg",
  "count",
  "topk",
  "rate",
  "increase",
  "histogram_quantile",
  "and",
  "or",
  "unless",
  "bool",
]);

/** A program of Debian's `prometheus` package; the test fails, saying so, without it. */
function prometheusTool(name: "promtool" | "prometheus"): string {
  const path = Bun.which(name);
  if (!path) {
    throw new Error(
      `${name} is missing: install Debian's prometheus package (apt-get install prometheus); .ci/run installs it`,
    );
  }
  return path;
}

function promtool(...args: string[]): { code: number; output: string } {
  const run = Bun.spawnSync([prometheusTool("promtool"), ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: run.exitCode, output: `${run.stdout}${run.stderr}` };
}

/** `promtool check metrics` on a page given on its standard input. */
function checkMetrics(page: string): { code: number; output: string } {
  const run = Bun.spawnSync([prometheusTool("promtool"), "check", "metrics"], {
    stdin: new TextEncoder().encode(page),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: run.exitCode, output: `${run.stdout}${run.stderr}` };
}

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
}
const rules = (): Rule[] =>
  (parse(read(RULES)).groups as { rules: Rule[] }[]).flatMap((group) => group.rules);

interface DashboardFile {
  uid: string;
  title: string;
  panels: { id: number; title: string; targets: { expr: string }[] }[];
}
const dashboards = (): [string, DashboardFile][] =>
  readdirSync(root + DASHBOARD_DIR)
    .filter((file) => file.endsWith(".json"))
    .map((file) => [file, JSON.parse(read(`${DASHBOARD_DIR}/${file}`))]);

/** The metric names a PromQL expression selects (labels, ranges, strings and words aside). */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, "")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const words = bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return [...new Set(words.filter((word) => !PROMQL_WORDS.has(word)))];
}

describe("alerting rules", () => {
  test("promtool check rules accepts the file, and refuses a broken copy", () => {
    const checked = promtool("check", "rules", root + RULES);
    expect(checked.output).toContain("SUCCESS");
    expect(checked.code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), "rules-"));
    try {
      const broken = join(dir, "broken.yaml");
      writeFileSync(
        broken,
        read(RULES).replace("max(outbox_lag_seconds) > 60", "max(outbox_lag_seconds >"),
      );
      expect(promtool("check", "rules", broken).code).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("promtool test rules: the error rate, queue lag and outbox age alerts fire when they should, and only then", () => {
    const tested = promtool("test", "rules", root + RULE_TESTS);
    expect(tested.output).toContain("SUCCESS");
    expect(tested.code).toBe(0);
  });

  test("an alert for each figure a team watches, each with a severity and a runbook line", () => {
    const names = rules().map((rule) => rule.alert);
    expect(names.sort()).toEqual(
      [
        "NewsroomHighErrorRate",
        "NewsroomHighLatencyP99",
        "NewsroomWebhookQueueLag",
        "NewsroomOutboxAge",
        "NewsroomWebhookEndpointDisablements",
        "NewsroomTargetDown",
        "NewsroomNotReady",
      ].sort(),
    );
    const operations = read("docs/operations.md");
    for (const rule of rules()) {
      expect(rule.labels?.severity ?? "none", rule.alert).toMatch(/^(page|warning)$/);
      expect(operations).toContain(`\`${rule.alert}\``);
    }
  });
});

describe("dashboards", () => {
  test("are current with scripts/dashboards.ts (npm run dashboards)", () => {
    for (const [path, text] of generatedDashboards()) expect(read(path), path).toBe(text);
    expect(dashboards().length).toBe(generatedDashboards().size);
  });

  test("one per service and one for the system, each with unique panel ids and a query in every panel", () => {
    const uids = dashboards().map(([, board]) => board.uid);
    expect(uids.sort()).toEqual(
      ["system", "gateway", "public-read", "forms", "client-api", "webhooks", "workspace"]
        .map((name) => `newsroom-${name}`)
        .sort(),
    );
    for (const [file, board] of dashboards()) {
      const ids = board.panels.map((panel) => panel.id);
      expect(new Set(ids).size, file).toBe(ids.length);
      for (const panel of board.panels)
        expect(panel.targets.length, panel.title).toBeGreaterThan(0);
    }
  });
});

describe("metric names", () => {
  test("the name reader finds selectors, not labels, ranges, functions or strings", () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (service, le) (rate(x_bucket{route!="a b"}[5m]))) > 1 and sum(rate(y_total[1h])) > 0',
      ),
    ).toEqual(["x_bucket", "y_total"]);
  });

  test("every metric the rules, dashboards and autoscaler read is one /metrics serves", async () => {
    const server = serveMetrics(await freePort(), "127.0.0.1");
    // As in the webhooks service, which reads its queue at each scrape.
    const stopReading = readQueueAtScrape(async () => ({ due: 0, oldestDueSeconds: 0 }));
    let page: string;
    try {
      page = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
    } finally {
      stopReading();
      server.stop(true);
    }
    const served = new Set(EXTERNAL_SERIES);
    for (const [, name, type] of page.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      if (type === "histogram")
        for (const part of ["bucket", "sum", "count"]) served.add(`${name}_${part}`);
      else served.add(name!);
    }
    const used = new Map<string, string>();
    for (const rule of rules()) {
      for (const name of metricNamesIn(rule.expr)) used.set(name, `rule ${rule.alert}`);
    }
    for (const [file, board] of dashboards()) {
      for (const panel of board.panels) {
        for (const target of panel.targets) {
          for (const name of metricNamesIn(target.expr)) used.set(name, `${file}: ${panel.title}`);
        }
      }
    }
    for (const rule of parse(read(ADAPTER)).externalRules as { seriesQuery: string }[]) {
      for (const name of metricNamesIn(rule.seriesQuery)) used.set(name, "prometheus-adapter");
    }
    expect(used.size).toBeGreaterThan(10);
    const unknown = [...used].filter(([name]) => !served.has(name));
    expect(unknown).toEqual([]);
  });

  test("the webhooks HPA scales on the queue lag the adapter serves", () => {
    const [adapterRule] = parse(read(ADAPTER)).externalRules;
    const hpa = parseAllDocuments(read("deploy/k8s/base/webhooks.yaml"))
      .map((doc) => doc.toJS())
      .find((doc) => doc.kind === "HorizontalPodAutoscaler");
    const external = hpa.spec.metrics.find(
      (metric: { type: string }) => metric.type === "External",
    );
    expect(external.external.metric.name).toBe(adapterRule.name.as);
    expect(metricNamesIn(adapterRule.seriesQuery)).toEqual(["webhook_queue_due"]);
    expect(external.external.target.type).toBe("AverageValue");
  });
});

describe("exposition", () => {
  const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

  test("promtool check metrics passes the Prometheus text page, and fails a broken one", async () => {
    requestMetrics.record("exposition-test", "/v1/things/:id", "GET", 200, 0.003, {
      trace_id: TRACE,
    });
    const page = await metricsPage("prometheus");
    expect(checkMetrics(page)).toEqual({ code: 0, output: "" });
    expect(
      checkMetrics(page.replace("# TYPE http_requests_total counter", "# TYPE x y")).code,
    ).not.toBe(0);
  });

  test("Prometheus scrapes OpenMetrics from /metrics and keeps the exemplar's trace id", async () => {
    requestMetrics.record("exposition-test", "/v1/traced", "GET", 200, 0.004, { trace_id: TRACE });
    const metrics = serveMetrics(await freePort(), "127.0.0.1");
    const dir = mkdtempSync(join(tmpdir(), "prometheus-"));
    const webPort = await freePort();
    writeFileSync(
      join(dir, "prometheus.yml"),
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: newsroom\n    static_configs:\n      - targets: ["127.0.0.1:${metrics.port}"]\n`,
    );
    const prometheus = Bun.spawn(
      [
        prometheusTool("prometheus"),
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
        "--enable-feature=exemplar-storage",
      ],
      { stdout: "ignore", stderr: "ignore" },
    );
    try {
      const api = `http://127.0.0.1:${webPort}/api/v1`;
      const query = `${api}/query_exemplars?query=${encodeURIComponent('http_request_duration_seconds_bucket{route="/v1/traced"}')}&start=0&end=${Date.now() / 1000 + 60}`;
      let found: {
        seriesLabels: Record<string, string>;
        exemplars: { labels: Record<string, string>; value: string }[];
      }[] = [];
      const deadline = Date.now() + 40_000;
      while (found.length === 0 && Date.now() < deadline) {
        await Bun.sleep(500);
        found = await fetch(query)
          .then((response) => response.json())
          .then((body) => (body as { data?: typeof found }).data ?? [])
          .catch(() => []);
      }
      expect(found).toHaveLength(1);
      expect(found[0]!.seriesLabels).toMatchObject({ le: "0.005", status_class: "2xx" });
      expect(found[0]!.exemplars).toEqual([
        expect.objectContaining({ labels: { trace_id: TRACE }, value: "0.004" }),
      ]);
      // The whole page was taken: the target is up, with no scrape error.
      const targets = await (await fetch(`${api}/targets`)).json();
      expect(targets.data.activeTargets[0]).toMatchObject({ health: "up", lastError: "" });
    } finally {
      prometheus.kill();
      await prometheus.exited;
      metrics.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
