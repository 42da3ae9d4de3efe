import { expect, test } from "bun:test";
import { Elysia } from "elysia";
import { edge, httpKit } from "../src/http.ts";
import { serveMetrics, webhookAttempts } from "../src/metrics.ts";
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
  } finally {
    server.stop(true);
  }
});
