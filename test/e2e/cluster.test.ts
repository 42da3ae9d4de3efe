import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { requireService, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { freePortsAt } from "@newsroom/shared/testing/ports";
import { waitForReady } from "@newsroom/shared/testing/servers";
import { Webhook } from "standardwebhooks";
import { type Cluster, clusterPlan, startCluster } from "../../scripts/cluster.ts";
import { freeClusterPorts, operatorApi } from "../support/cluster.ts";

/**
 * The six processes on the real PostgreSQL, JetStream and Redis: a story moves through
 * submit, approve, publish and unpublish, and every side sees it.
 */
const databaseUrl = requireService("DATABASE_URL");
const natsUrl = requireService("NATS_URL");
const redisUrl = requireService("REDIS_URL");
const ready = Boolean(databaseUrl && natsUrl && redisUrl);

const ADMIN_TOKEN = "cluster-test-admin-token";
const suffix = Math.random().toString(36).slice(2, 8);
const stream = `T_E2E_${suffix.toUpperCase()}`;
const house = `house-${suffix}`;

interface Received {
  id: string;
  type: string;
  storyStatus: string | null;
}

describe.skipIf(!ready)("the cluster end to end", () => {
  let cluster: Cluster;
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let receiver: ReturnType<typeof Bun.serve>;
  let base = "";
  let workspace = "";
  let gatewayMetrics = "";
  const received: Received[] = [];
  let verify: Webhook | null = null;

  beforeAll(
    async () => {
      database = await testDatabase({ backend: "postgres" });
      receiver = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: async (request) => {
          const body = await request.text();
          const headers: Record<string, string> = {};
          request.headers.forEach((value, name) => {
            headers[name] = value;
          });
          const event = verify!.verify(body, headers) as {
            id: string;
            type: string;
            data: { story: { status: string } | null };
          };
          received.push({
            id: event.id,
            type: event.type,
            storyStatus: event.data.story?.status ?? null,
          });
          return new Response(null, { status: 204 });
        },
      });
      const ports = {
        ...(await freeClusterPorts()),
        metrics: await freePortsAt([0, 1, 2, 3, 4, 5]),
      };
      cluster = startCluster(
        ports,
        {
          PATH: process.env.PATH,
          DATABASE_URL: database.url,
          NATS_URL: natsUrl,
          NATS_STREAM: stream,
          NATS_SUBJECT_PREFIX: `e2e${suffix}.`,
          REDIS_URL: redisUrl,
          ADMIN_TOKEN,
          HOUSE_ORG: house,
          WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
          WEBHOOK_RETRY_SCHEDULE: "1,1,1,1,1,1,1",
          LOG_LEVEL: "error",
        },
        { output: "inherit" },
      );
      base = `http://127.0.0.1:${ports.gateway}`;
      workspace = `http://127.0.0.1:${ports.workspace}/internal/v1`;
      // One metrics port per process, in the plan's order.
      const gatewayIndex = Object.keys(clusterPlan(ports)).indexOf("gateway");
      gatewayMetrics = `http://127.0.0.1:${ports.metrics + gatewayIndex}/metrics`;
      await waitForReady(`http://127.0.0.1:${ports.workspace}/health/ready`, START_BUDGET_MS);
      await waitForReady(`${base}/health/ready`, START_BUDGET_MS);
      await admin("POST", "/orgs", { slug: house, name: "House", newsroom_running: true });
    },
    startBudget(1, 60_000),
  );

  afterAll(async () => {
    await cluster?.stop();
    receiver?.stop(true);
    await database?.close();
    const nc = await connect({ servers: natsUrl! });
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
    await nc.close();
  });

  const admin = (method: string, path: string, body?: unknown) =>
    operatorApi(workspace, ADMIN_TOKEN)(method, path, body);

  test("submit, approve, publish, unpublish: client API, public newsroom, webhooks, delivery log", async () => {
    const key = await admin("POST", `/orgs/${house}/keys`, {
      environment: "test",
      scopes: ["stories:read", "approvals:read", "feed:read", "webhooks:read"],
      lifetime_days: 30,
    });
    const endpoint = await admin("POST", `/orgs/${house}/webhook_endpoints`, {
      url: `http://127.0.0.1:${receiver.port}/hooks`,
      events: [
        "story.submitted",
        "story.approved",
        "story.rejected",
        "story.published",
        "story.unpublished",
      ],
      // Arrival order is asserted below; an endpoint without ordering gets events in parallel.
      ordering: "story",
    });
    verify = new Webhook(endpoint.secret);
    const story = await admin("POST", `/orgs/${house}/stories`, {
      type: "press_release",
      slug: "cluster-story",
      title: "A story across six processes",
      summary: "End to end",
      body: [{ type: "paragraph", text: "Hello from the cluster." }],
      topics: ["community"],
    });

    const api = (path: string) =>
      fetch(base + path, { headers: { authorization: `Bearer ${key.secret}` } });
    const statusInApi = async () => (await (await api(`/v1/stories/${story.id}`)).json()).status;
    const inNewsroom = async () => {
      const index = await (await fetch(`${base}/v1/public/newsroom`)).json();
      return (index.items as { slug: string }[]).some((item) => item.slug === "cluster-story");
    };
    const item = async () => (await fetch(`${base}/v1/public/newsroom/cluster-story`)).status;

    expect(await statusInApi()).toBe("draft");
    expect(await inNewsroom()).toBe(false);

    await admin("POST", `/stories/${story.id}/transitions`, { action: "submit" });
    expect(await statusInApi()).toBe("review_required");
    const queue = await (await api("/v1/approvals")).json();
    expect(queue.data.map((s: { id: string }) => s.id)).toContain(story.id);
    expect(await inNewsroom()).toBe(false);

    await admin("POST", `/stories/${story.id}/transitions`, {
      action: "approve",
      actor_role: "approver",
    });
    expect(await statusInApi()).toBe("approved");
    expect(await item()).toBe(404);

    await admin("POST", `/stories/${story.id}/transitions`, { action: "publish" });
    expect(await statusInApi()).toBe("published");
    await eventually(() => inNewsroom(), {
      message: "published in newsroom",
      timeoutMs: 15_000,
    });
    expect(await item()).toBe(200);
    const feed = await (await api("/v1/feed.json")).json();
    expect(feed.items.map((i: { id: string }) => i.id).join(" ")).toContain(story.id);

    await admin("POST", `/stories/${story.id}/transitions`, { action: "unpublish" });
    expect(await statusInApi()).toBe("unpublished");
    await eventually(async () => !(await inNewsroom()), {
      message: "gone from newsroom",
      timeoutMs: 15_000,
    });
    await eventually(async () => (await item()) === 404, {
      message: "item gone",
      timeoutMs: 15_000,
    });

    await eventually(() => received.length >= 4, {
      message: "four webhooks",
      timeoutMs: 30_000,
    });
    await Bun.sleep(500);
    expect(received.map((r) => r.type)).toEqual([
      "story.submitted",
      "story.approved",
      "story.published",
      "story.unpublished",
    ]);
    expect(new Set(received.map((r) => r.id)).size).toBe(4);

    const log = await eventually(
      async () => {
        const page = await (await api(`/v1/webhook_deliveries?endpoint_id=${endpoint.id}`)).json();
        return page.data.length === 4 &&
          page.data.every((d: { status: string }) => d.status === "delivered")
          ? page
          : undefined;
      },
      { message: "delivery log", timeoutMs: 15_000 },
    );
    expect(log.data.map((d: { event_type: string }) => d.event_type).sort()).toEqual([
      "story.approved",
      "story.published",
      "story.submitted",
      "story.unpublished",
    ]);
    expect(log.data.map((d: { event_id: string }) => d.event_id).sort()).toEqual(
      received.map((r) => r.id).sort(),
    );
  }, 120_000);

  test("the gateway serves a warm house newsroom from its cache, and a publish or unpublish shows within seconds", async () => {
    const hits = async () => {
      const text = await (await fetch(gatewayMetrics)).text();
      const line = /^gateway_answer_cache_lookups_total\{outcome="hit"\} (\d+)/m.exec(text);
      return Number(line?.[1] ?? 0);
    };
    const newsroom = async () => {
      const response = await fetch(`${base}/v1/public/newsroom`);
      expect(response.status).toBe(200);
      // What the spec asks of a public 200, from the gateway's cache as from public-read; the
      // organization header stays between the two.
      expect(response.headers.get("cache-control")).toBe(
        "public, s-maxage=300, stale-while-revalidate=86400, stale-if-error=604800",
      );
      expect(response.headers.get("cache-tag")?.split(",")).toContain("newsroom-index");
      expect(response.headers.get("x-answer-organization")).toBeNull();
      const body = (await response.json()) as { items: { slug: string }[] };
      return { etag: response.headers.get("etag"), slugs: body.items.map((item) => item.slug) };
    };
    const item = async () => (await fetch(`${base}/v1/public/newsroom/cached-story`)).status;
    const story = await admin("POST", `/orgs/${house}/stories`, {
      type: "press_release",
      slug: "cached-story",
      title: "A story the gateway kept",
      summary: "Cached at the gateway",
      body: [{ type: "paragraph", text: "Kept one hop nearer." }],
      topics: ["community"],
    });
    await admin("POST", `/stories/${story.id}/transitions`, { action: "submit" });
    await admin("POST", `/stories/${story.id}/transitions`, {
      action: "approve",
      actor_role: "approver",
    });

    const warm = await newsroom();
    expect(warm.slugs).not.toContain("cached-story");
    const before = await hits();
    const again = await newsroom();
    expect(await hits()).toBe(before + 1);
    expect(again).toEqual(warm);

    await admin("POST", `/stories/${story.id}/transitions`, { action: "publish" });
    await eventually(async () => (await newsroom()).slugs.includes("cached-story"), {
      message: "the published story in the newsroom through the gateway",
      timeoutMs: 5_000,
    });
    await eventually(async () => (await item()) === 200, {
      message: "the published story's item",
      timeoutMs: 5_000,
    });
    // Once public-read has dropped its own copy, the new answer is the one kept and served.
    await Bun.sleep(2_500);
    const published = await newsroom();
    const hitsNow = await hits();
    expect(await newsroom()).toEqual(published);
    expect(await hits()).toBe(hitsNow + 1);
    expect(published.slugs).toContain("cached-story");

    await admin("POST", `/stories/${story.id}/transitions`, { action: "unpublish" });
    await eventually(async () => !(await newsroom()).slugs.includes("cached-story"), {
      message: "the unpublished story gone from the newsroom through the gateway",
      timeoutMs: 5_000,
    });
    await eventually(async () => (await item()) === 404, {
      message: "the unpublished story's item gone",
      timeoutMs: 5_000,
    });
  }, 60_000);
});
