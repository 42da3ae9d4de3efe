import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { JetStreamBus } from "@newsroom/shared/bus/jetstream";
import { loadConfig } from "@newsroom/shared/config";
import type { ServiceHandle } from "@newsroom/shared/service";
import { requireService } from "@newsroom/shared/testing/database";
import { testRuntime } from "@newsroom/shared/testing/runtime";
import { createWebhooksService } from "@newsroom/webhooks/app";
import { testAndWait } from "../src/webhook-endpoints/test-results.ts";
import { cliAgainst } from "./support/cli.ts";
import { type Harness, SECRETS_KEY, workspaceHarness } from "./support/harness.ts";

/** `endpoint-test` says whether the receiver accepted the test event, with status and duration. */
let h: Harness;
let cli: ReturnType<typeof cliAgainst>;
let webhooks: ServiceHandle;
const seen: string[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (request) => {
    const path = new URL(request.url).pathname;
    seen.push(`${path} ${JSON.parse(await request.text()).type}`);
    return new Response(null, { status: path === "/broken" ? 500 : 204 });
  },
});
const at = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

beforeAll(async () => {
  h = await workspaceHarness({ allowInsecureTargets: true });
  cli = cliAgainst(h);
  webhooks = await createWebhooksService(
    testRuntime({
      database: h.database,
      bus: h.bus,
      config: loadConfig({
        SERVICE_ENV: "development",
        SECRETS_KEY: SECRETS_KEY.toString("base64"),
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
      }),
    }),
    { pollIntervalMs: 50, attemptTimeoutMs: 3_000 },
  );
  await h.call("POST", "/orgs", { slug: "tested", name: "Tested" });
});
afterAll(async () => {
  await webhooks.stop();
  cli.stop();
  receiver.stop(true);
  await h.close();
});

async function endpointAt(path: string): Promise<string> {
  const created = await cli.admin(
    "endpoint-create",
    "tested",
    at(path),
    "--events",
    "story.published",
  );
  expect(created.code).toBe(0);
  return created.json().id;
}

describe("npm run admin -- endpoint-test", () => {
  test("an accepting receiver: accepted, its status and the time it took", async () => {
    const id = await endpointAt("/ok");
    const run = await cli.admin("endpoint-test", id);
    expect(run.code).toBe(0);
    const answer = run.json();
    expect(answer).toMatchObject({ object: "webhook_endpoint", id });
    expect(answer.test).toMatchObject({ status: "accepted", status_code: 204, error: null });
    expect(answer.test.duration_ms).toBeGreaterThanOrEqual(0);
    expect(run.stderr).toMatch(/test event accepted: HTTP 204 in \d+ ms/);
    expect(seen).toContain("/ok webhook.test");
  });

  test("a failing receiver: failed with its status, exit code 1", async () => {
    const id = await endpointAt("/broken");
    const run = await cli.admin("endpoint-test", id);
    expect(run.code).toBe(1);
    expect(run.json().test).toMatchObject({
      status: "failed",
      status_code: 500,
      error: "receiver answered 500",
    });
    expect(run.stderr).toContain("test event failed: HTTP 500");
  });

  test("without the webhooks service the answer says it is pending, and why", async () => {
    const alone = await workspaceHarness({ allowInsecureTargets: true });
    try {
      await alone.call("POST", "/orgs", { slug: "alone", name: "Alone" });
      const endpoint = await alone.call("POST", "/orgs/alone/webhook_endpoints", {
        url: at("/ok"),
        events: ["story.published"],
      });
      const { test } = await testAndWait(
        { db: alone.database.db, bus: alone.bus },
        endpoint.body.id,
        200,
      );
      expect(test).toMatchObject({ status: "pending" });
      expect((test as { message: string }).message).toContain("is it running?");
    } finally {
      await alone.close();
    }
  });

  test("over JetStream too: the result reaches the workspace that asked", async () => {
    const url = requireService("NATS_URL");
    if (!url) return;
    const id = Math.random().toString(36).slice(2, 10);
    const stream = `T_WS_${id.toUpperCase()}`;
    const bus = await JetStreamBus.connect(url, { stream, subjectPrefix: `tws${id}.` });
    const viaNats = await workspaceHarness({ allowInsecureTargets: true, bus });
    const service = await createWebhooksService(
      testRuntime({
        database: viaNats.database,
        bus,
        config: loadConfig({
          SERVICE_ENV: "development",
          SECRETS_KEY: SECRETS_KEY.toString("base64"),
          WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        }),
      }),
      { pollIntervalMs: 50, attemptTimeoutMs: 3_000, consumerName: `webhooks-${id}` },
    );
    try {
      await viaNats.call("POST", "/orgs", { slug: "nats", name: "Nats" });
      const endpoint = await viaNats.call("POST", "/orgs/nats/webhook_endpoints", {
        url: at("/nats"),
        events: ["story.published"],
      });
      const answer = await viaNats.call(
        "POST",
        `/webhook_endpoints/${endpoint.body.id}/test?wait=true`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.test).toMatchObject({ status: "accepted", status_code: 204 });
    } finally {
      await service.stop();
      await viaNats.close();
      const nc = await connect({ servers: url });
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
      await nc.close();
    }
  });

  test("without ?wait=true the route answers the endpoint at once, as before", async () => {
    const id = await endpointAt("/ok");
    const answer = await h.call("POST", `/webhook_endpoints/${id}/test`);
    expect(answer.status).toBe(200);
    expect(answer.body.test).toBeUndefined();
  });
});
