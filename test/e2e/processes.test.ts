import { describe, expect, test } from "bun:test";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { freePort } from "@newsroom/shared/testing/ports";
import { waitForReady } from "@newsroom/shared/testing/servers";

/**
 * Each service as its own process, configured by environment variables only: it answers its
 * health routes, logs one JSON line per request (never a key), serves /metrics on its internal
 * port, and on SIGTERM drains and exits 0 within 10 s.
 */
const root = new URL("../../", import.meta.url).pathname;
const KEY = `armk_test_${"K".repeat(43)}`;

const PROCESSES: [string, string, string][] = [
  ["gateway", "gateway/src/main.ts", "PORT"],
  ["public-read", "services/public-read/src/main.ts", "PORT"],
  ["forms", "services/forms/src/main.ts", "PORT"],
  ["client-api", "services/client-api/src/main.ts", "PORT"],
  ["webhooks", "services/webhooks/src/main.ts", "PORT"],
  ["workspace", "services/workspace/src/main.ts", "WORKSPACE_PORT"],
];

describe("each service as its own process", () => {
  for (const [name, entry, portVariable] of PROCESSES) {
    test(
      `${name}: health, JSON request logs without keys, metrics, graceful SIGTERM`,
      async () => {
        const port = await freePort();
        const metricsPort = await freePort();
        const child = Bun.spawn([process.execPath, entry], {
          cwd: root,
          env: {
            PATH: process.env.PATH,
            PGLITE_DIR: "memory",
            [portVariable]: String(port),
            METRICS_PORT: String(metricsPort),
            LOG_LEVEL: "info",
          },
          stdout: "pipe",
          stderr: "pipe",
        });
        try {
          const base = `http://127.0.0.1:${port}`;
          await waitForReady(`${base}/health`, START_BUDGET_MS);
          if (name === "gateway") {
            // A gateway alone with no DATABASE_URL reports no database.
            expect((await (await fetch(`${base}/health`)).json()).database_configured).toBe(false);
          }
          await fetch(`${base}/v1/feed.json?key=${KEY}`, {
            headers: { authorization: `Bearer ${KEY}` },
          });
          const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
          const metrics = await (await fetch(metricsUrl)).text();
          expect(metrics).toContain("http_requests_total");
          // OpenMetrics when the scraper asks for it, as Prometheus does.
          const open = await fetch(metricsUrl, {
            headers: { accept: "application/openmetrics-text;version=1.0.0" },
          });
          expect(open.headers.get("content-type")).toStartWith("application/openmetrics-text");
          expect(await open.text()).toEndWith("# EOF\n");
          // The queue lag, read from the database at the scrape: by the webhooks process only.
          if (name === "webhooks") {
            expect(metrics).toMatch(/^webhook_queue_due 0$/m);
            expect(metrics).toMatch(/^webhook_queue_oldest_due_seconds 0$/m);
          } else {
            expect(metrics).not.toContain("webhook_queue_due");
          }

          const started = Date.now();
          child.kill("SIGTERM");
          const code = await child.exited;
          expect(code).toBe(0);
          expect(Date.now() - started).toBeLessThan(10_000);

          const output = await new Response(child.stdout).text();
          const lines = output.split("\n").filter((line) => line.startsWith("{"));
          const requests = lines
            .map((line) => JSON.parse(line))
            .filter((entry) => entry.message === "request");
          expect(requests.length).toBeGreaterThanOrEqual(2);
          for (const entry of requests) {
            expect(entry.request_id).toMatch(/^req_/);
            expect(typeof entry.status).toBe("number");
            expect(typeof entry.duration_ms).toBe("number");
          }
          expect(output).not.toContain(KEY);
          expect(await new Response(child.stderr).text()).not.toContain(KEY);
        } finally {
          child.kill("SIGKILL");
        }
      },
      startBudget(),
    );
  }
});
