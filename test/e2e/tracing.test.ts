import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { requireService, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { type CollectedSpan, startOtlpCollector } from "@newsroom/shared/testing/otlp-collector";
import { freePort } from "@newsroom/shared/testing/ports";
import { waitForReady } from "@newsroom/shared/testing/servers";
import { startReceiver } from "@newsroom/shared/testing/webhook-receiver";
import { type Cluster, startCluster } from "../../scripts/cluster.ts";
import { freeClusterPorts, operatorApi } from "../support/cluster.ts";

/**
 * Traces across the processes, exported to a collector on 127.0.0.1 over OTLP/HTTP (JSON for the
 * first flow, protobuf for the second): a client-API request through the gateway, and an
 * approval from the workspace through the outbox and JetStream to each webhook attempt. No span
 * of either holds a key, a token, a secret, an email address or a story's body.
 */
const root = new URL("../../", import.meta.url).pathname;
const KEY = `armk_test_${"T".repeat(43)}`;
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;
const EMAIL = /[^\s@"]+@[^\s@"]+\.[a-z]{2,}/i;

const collector = startOtlpCollector();
/** What no span may hold, whichever flow made it. */
const neverRecorded: string[] = [KEY, "Bearer"];

afterAll(() => {
  // Checked over every span both flows exported.
  expect(collector.spans.length).toBeGreaterThan(0);
  for (const span of collector.spans) {
    const text = JSON.stringify(span);
    for (const value of neverRecorded) expect(text).not.toContain(value);
    expect(text).not.toMatch(EMAIL);
  }
  collector.stop();
});

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

function spawnProcess(entry: string, env: Record<string, string>) {
  return Bun.spawn([process.execPath, entry], {
    cwd: root,
    env: { PATH: process.env.PATH, LOG_LEVEL: "info", OTEL_BSP_SCHEDULE_DELAY: "200", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
}

describe("a client-API request through the gateway (separate processes)", () => {
  test(
    "one trace: the caller's, then the gateway's server span, then client-api's as its child; the logs name it; an untrusted caller's trace is only linked",
    async () => {
      const [gatewayPort, clientApiPort, metricsPort] = [
        await freePort(),
        await freePort(),
        await freePort(),
      ];
      const otel = {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      };
      let publicGateway: ReturnType<typeof spawnProcess> | undefined;
      const clientApi = spawnProcess("services/client-api/src/main.ts", {
        ...otel,
        PGLITE_DIR: "memory",
        PORT: String(clientApiPort),
        METRICS_PORT: String(metricsPort),
      });
      const gateway = spawnProcess("gateway/src/main.ts", {
        ...otel,
        PORT: String(gatewayPort),
        CLIENT_API_URL: `http://127.0.0.1:${clientApiPort}`,
        // The caller is a trusted proxy: its trace context is continued.
        TRUSTED_PROXIES: "127.0.0.1/32",
      });
      try {
        await waitForReady(`http://127.0.0.1:${clientApiPort}/health`, START_BUDGET_MS);
        await waitForReady(`http://127.0.0.1:${gatewayPort}/health`, START_BUDGET_MS);
        const traceId = randomHex(16);
        const callerSpanId = randomHex(8);
        const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1/stories?key=${KEY}`, {
          headers: {
            authorization: `Bearer ${KEY}`,
            traceparent: `00-${traceId}-${callerSpanId}-01`,
          },
        });
        expect(response.status).toBe(401);
        const [gatewaySpan, clientApiSpan] = await eventually(
          () => {
            const spans = collector.trace(traceId).filter((span) => span.kind === SERVER);
            const at = (service: string) => spans.find((span) => span.service === service);
            const pair = [at("gateway"), at("client-api")];
            return pair.every(Boolean) ? (pair as CollectedSpan[]) : undefined;
          },
          { message: "the gateway's and client-api's spans", timeoutMs: 15_000 },
        );
        expect(gatewaySpan!.parentSpanId).toBe(callerSpanId);
        expect(clientApiSpan!.parentSpanId).toBe(gatewaySpan!.spanId);
        expect(clientApiSpan!.name).toBe("GET /v1/stories");
        expect(clientApiSpan!.attributes["http.response.status_code"]).toBe(401);
        expect(clientApiSpan!.attributes["url.path"]).toBe("/v1/stories");
        expect(clientApiSpan!.encoding).toBe("json");
        // The request's duration points at its trace, where OpenMetrics is asked for.
        const metrics = await (
          await fetch(`http://127.0.0.1:${metricsPort}/metrics`, {
            headers: { accept: "application/openmetrics-text; version=1.0.0" },
          })
        ).text();
        expect(metrics).toContain(`# {trace_id="${traceId}"}`);

        // A gateway that does not trust the caller starts a trace of its own, linked to the
        // caller's, and client-api continues the gateway's, never the one the caller sent.
        const publicPort = await freePort();
        publicGateway = spawnProcess("gateway/src/main.ts", {
          ...otel,
          PORT: String(publicPort),
          CLIENT_API_URL: `http://127.0.0.1:${clientApiPort}`,
        });
        await waitForReady(`http://127.0.0.1:${publicPort}/health`, START_BUDGET_MS);
        const publicTraceId = randomHex(16);
        const publicSpanId = randomHex(8);
        await fetch(`http://127.0.0.1:${publicPort}/v1/stories`, {
          headers: { traceparent: `00-${publicTraceId}-${publicSpanId}-01` },
        });
        const linked = await eventually(
          () =>
            collector.spans.find(
              (span) =>
                span.service === "gateway" &&
                span.links.some((link) => link.traceId === publicTraceId),
            ),
          { message: "the untrusting gateway's span", timeoutMs: 15_000 },
        );
        expect(linked.traceId).not.toBe(publicTraceId);
        expect(linked.parentSpanId).toBe("");
        expect(linked.links[0]!.spanId).toBe(publicSpanId);
        const behind = await eventually(
          () =>
            collector
              .trace(linked.traceId)
              .find((span) => span.service === "client-api" && span.kind === SERVER),
          { message: "client-api's span in the gateway's trace", timeoutMs: 15_000 },
        );
        expect(behind.parentSpanId).toBe(linked.spanId);
        expect(collector.trace(publicTraceId)).toEqual([]);

        for (const child of [clientApi, gateway]) child.kill("SIGTERM");
        await Promise.all([clientApi.exited, gateway.exited]);
        const output = await new Response(clientApi.stdout).text();
        const request = output
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line))
          .find((line) => line.message === "request" && line.route === "/v1/stories");
        expect(request.trace_id).toBe(traceId);
        expect(request.span_id).toBe(clientApiSpan!.spanId);
        expect(output).not.toContain(KEY);
        expect(output).not.toMatch(EMAIL);
      } finally {
        clientApi.kill("SIGKILL");
        gateway.kill("SIGKILL");
        publicGateway?.kill("SIGKILL");
      }
    },
    startBudget(2),
  );
});

const databaseUrl = requireService("DATABASE_URL");
const natsUrl = requireService("NATS_URL");
const redisUrl = requireService("REDIS_URL");
const ready = Boolean(databaseUrl && natsUrl && redisUrl);

describe.skipIf(!ready)("an approval through the workspace (the cluster)", () => {
  const ADMIN_TOKEN = "tracing-test-admin-token";
  const suffix = Math.random().toString(36).slice(2, 8);
  const stream = `T_TRACE_${suffix.toUpperCase()}`;
  const house = `house-${suffix}`;
  const receiver = startReceiver();
  let cluster: Cluster;
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let workspace = "";

  beforeAll(
    async () => {
      neverRecorded.push(ADMIN_TOKEN);
      database = await testDatabase({ backend: "postgres" });
      const ports = await freeClusterPorts();
      cluster = startCluster(
        ports,
        {
          PATH: process.env.PATH,
          DATABASE_URL: database.url,
          NATS_URL: natsUrl,
          NATS_STREAM: stream,
          NATS_SUBJECT_PREFIX: `trace${suffix}.`,
          REDIS_URL: redisUrl,
          ADMIN_TOKEN,
          HOUSE_ORG: house,
          WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
          LOG_LEVEL: "error",
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
          OTEL_BSP_SCHEDULE_DELAY: "200",
        },
        { output: "inherit" },
      );
      workspace = `http://127.0.0.1:${ports.workspace}/internal/v1`;
      await waitForReady(`http://127.0.0.1:${ports.workspace}/health/ready`, START_BUDGET_MS);
      await waitForReady(`http://127.0.0.1:${ports.webhooks}/health/ready`, START_BUDGET_MS);
    },
    startBudget(1, 60_000),
  );

  afterAll(async () => {
    await cluster?.stop();
    receiver.stop();
    await database?.close();
    const nc = await connect({ servers: natsUrl! });
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
    await nc.close();
  });

  test("one trace: the transition, the relay's publish, the fan-out's consume, each delivery attempt", async () => {
    const admin = operatorApi(workspace, ADMIN_TOKEN);
    await admin("POST", "/orgs", { slug: house, name: "House", newsroom_running: true });
    const endpoint = await admin("POST", `/orgs/${house}/webhook_endpoints`, {
      url: receiver.url("/hooks"),
      events: ["story.approved"],
    });
    neverRecorded.push(endpoint.secret);
    const story = await admin("POST", `/orgs/${house}/stories`, {
      type: "press_release",
      slug: "traced-story",
      title: "A traced story",
      summary: "Traced",
      body: [{ type: "paragraph", text: "A body no span may hold." }],
    });
    neverRecorded.push("A body no span may hold.");
    await admin("POST", `/stories/${story.id}/transitions`, { action: "submit" });
    // Fanned out before the approval: events that arrive together share one fan-out transaction,
    // whose statements run under the first message's span (each event's deliveries still join
    // their own message's trace).
    await eventually(
      () =>
        collector.spans.some(
          (span) =>
            span.kind === CONSUMER &&
            String(span.attributes["messaging.destination.name"]).endsWith("story.submitted"),
        ),
      { message: "the submission's fan-out", timeoutMs: 20_000 },
    );
    await admin("POST", `/stories/${story.id}/transitions`, {
      action: "approve",
      actor_role: "approver",
    });
    await eventually(() => receiver.hits.length >= 1, {
      message: "the approval's webhook",
      timeoutMs: 30_000,
    });

    const trace = await eventually(
      () => {
        const publish = collector.spans.find(
          (span) =>
            span.kind === PRODUCER &&
            String(span.attributes["messaging.destination.name"]).endsWith("story.approved"),
        );
        if (!publish) return undefined;
        const spans = collector.trace(publish.traceId);
        const attempt = spans.find((span) => span.name === "webhook attempt");
        const post = spans.find((span) => span.kind === CLIENT && span.name === "POST");
        return attempt && post ? { publish, spans, attempt, post } : undefined;
      },
      { message: "the approval's whole trace", timeoutMs: 20_000 },
    );
    const { publish, spans, attempt, post } = trace;
    const byId = new Map(spans.map((span) => [span.spanId, span]));

    const transition = byId.get(publish.parentSpanId)!;
    expect(transition.service).toBe("workspace");
    expect(transition.kind).toBe(SERVER);
    expect(transition.name).toBe("POST /internal/v1/stories/:id/transitions");
    expect(publish.service).toBe("workspace");
    expect(publish.attributes["messaging.system"]).toBe("nats");

    const consume = spans.find((span) => span.kind === CONSUMER && span.service === "webhooks")!;
    expect(consume.parentSpanId).toBe(publish.spanId);
    expect(consume.attributes["messaging.system"]).toBe("nats");
    expect(consume.attributes["messaging.destination.name"]).toBe(
      publish.attributes["messaging.destination.name"],
    );
    // The fan-out's statements run under the consume span.
    expect(
      spans.some(
        (span) =>
          span.parentSpanId === consume.spanId && span.attributes["db.system"] === "postgresql",
      ),
    ).toBe(true);

    const attempts = spans.filter((span) => span.name === "webhook attempt");
    expect(attempts.length).toBe(receiver.hits.length);
    for (const each of attempts) {
      expect(each.service).toBe("webhooks");
      expect(each.parentSpanId).toBe(consume.spanId);
      // Each receiver's first request: the attempt the claim opened, counted once.
      expect(each.attributes["newsroom.webhook.attempt"]).toBe(1);
    }
    expect(post.parentSpanId).toBe(attempt.spanId);
    expect(post.attributes["server.address"]).toBe("127.0.0.1");
    expect(post.attributes["http.response.status_code"]).toBe(200);
    expect(post.encoding).toBe("protobuf");

    // Statements are recorded with placeholders, never their values.
    const statements = collector.spans.filter((span) => span.attributes["db.query.text"]);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(String(statement.attributes["db.query.text"])).not.toContain(story.id);
    }
  }, 90_000);
});
