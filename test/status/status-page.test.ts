import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { type EventBus, openBus } from "@newsroom/shared/bus/index";
import { type BusEvent, EVENT, StatusIncidentUpdatedEvent } from "@newsroom/shared/events";
import { expectAccessible } from "@newsroom/shared/testing/accessibility";
import { CHROMIUM, launchChromium } from "@newsroom/shared/testing/browser";
import { START_BUDGET_MS, startBudget } from "@newsroom/shared/testing/budget";
import { requireService, type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eventually } from "@newsroom/shared/testing/eventually";
import { waitForReady } from "@newsroom/shared/testing/servers";
import { type TcpProxy, tcpProxy } from "@newsroom/shared/testing/tcp-proxy";
import { Value } from "@sinclair/typebox/value";
import { type Cluster, startCluster } from "../../scripts/cluster.ts";
import { freeClusterPorts, operatorApi } from "../support/cluster.ts";
import { type Incident, StatuspageClient } from "./statuspage-client.ts";

/**
 * The status page under the six processes, probing every two seconds: a process stopped shows
 * its component as an outage within a minute and operational again after its restart; the
 * Statuspage-compatible JSON read by a client written from Statuspage's documentation; the page
 * in Chromium (axe, 390 px, no script); the database cut away (a TCP proxy in front of this
 * file's own database), the page still answers with the status last known, saying so; the
 * workspace itself stopped, the gateway answers the copies it last saw.
 */
const databaseUrl = requireService("DATABASE_URL");
const natsUrl = requireService("NATS_URL");
const redisUrl = requireService("REDIS_URL");
const ready = Boolean(databaseUrl && natsUrl && redisUrl);
if (process.env.CI === "true" && !existsSync(CHROMIUM)) {
  throw new Error(`CI=true but ${CHROMIUM} is missing: apt-get install -y chromium`);
}

const ADMIN_TOKEN = "status-test-admin-token";
const OUTAGE_WITHIN_MS = 60_000;

describe.skipIf(!ready)("the status page under the cluster", () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let cluster: Cluster;
  let base = "";
  let client: StatuspageClient;
  let admin: ReturnType<typeof operatorApi>;
  let bus: EventBus;
  const heard: BusEvent[] = [];

  beforeAll(
    async () => {
      database = await testDatabase({ backend: "postgres" });
      const real = new URL(database.url!);
      proxy = tcpProxy({ hostname: real.hostname, port: Number(real.port || 5432) });
      const throughProxy = new URL(database.url!);
      throughProxy.hostname = "127.0.0.1";
      throughProxy.port = String(proxy.port);
      const suffix = Math.random().toString(36).slice(2, 8);
      // What the subscribers of incident updates (mailings, webhooks) are handed on the bus.
      bus = await openBus(natsUrl, {
        stream: `STATUS_${suffix}`,
        subjectPrefix: `status${suffix}.`,
      });
      await bus.subscribe(
        async (event) => {
          heard.push(event);
        },
        { durable: `status-test-${suffix}`, types: [EVENT.statusIncidentUpdated], from: "all" },
      );
      const ports = await freeClusterPorts();
      cluster = startCluster(
        ports,
        {
          PATH: process.env.PATH,
          DATABASE_URL: throughProxy.toString(),
          NATS_URL: natsUrl,
          NATS_STREAM: `STATUS_${suffix}`,
          NATS_SUBJECT_PREFIX: `status${suffix}.`,
          REDIS_URL: redisUrl,
          RATE_LIMIT_PREFIX: `status${suffix}:`,
          ADMIN_TOKEN,
          HOUSE_ORG: "status-house",
          STATUS_PROBE_INTERVAL_SECONDS: "2",
          LOG_LEVEL: "error",
        },
        { output: process.env.STATUS_OUTPUT === "inherit" ? "inherit" : "ignore" },
      );
      base = `http://127.0.0.1:${ports.gateway}`;
      client = new StatuspageClient(base);
      admin = operatorApi(`http://127.0.0.1:${ports.workspace}/internal/v1`, ADMIN_TOKEN);
      await waitForReady(`http://127.0.0.1:${ports.workspace}/health/ready`, START_BUDGET_MS);
      await waitForReady(`${base}/health/ready`, START_BUDGET_MS);
      // A first recorded round: every component operational, as the probes found it.
      await eventually(
        async () => {
          const page = await (await fetch(`${base}/status`)).text();
          return (page.match(/: 100% up"/g) ?? []).length === 6;
        },
        { message: "a first probe round on the page", timeoutMs: 30_000, everyMs: 500 },
      );
    },
    startBudget(1, 60_000),
  );

  afterAll(async () => {
    await bus?.close();
    await cluster?.stop();
    proxy?.restore();
    await database?.close();
  });

  test(
    "the forms process stopped: forms is a major outage within a minute, operational after its restart",
    async () => {
      expect(await client.componentStatus("forms")).toBe("operational");
      const forms = cluster.processes.get("forms")!;
      forms.kill("SIGTERM");
      await forms.exited;
      const stoppedAt = Date.now();
      await eventually(async () => (await client.componentStatus("forms")) === "major_outage", {
        message: "forms shown as a major outage",
        timeoutMs: OUTAGE_WITHIN_MS,
        everyMs: 500,
      });
      expect(Date.now() - stoppedAt).toBeLessThan(OUTAGE_WITHIN_MS);
      // The others stay as they were, even once the gateway's own readiness (which asks every
      // service behind it) fails: the gateway is probed by its liveness.
      await eventually(async () => (await fetch(`${base}/health/ready`)).status === 503, {
        message: "the gateway not ready without forms",
        timeoutMs: 30_000,
        everyMs: 500,
      });
      await Bun.sleep(5_000);
      for (const id of ["client-api", "public-newsroom", "workspace"]) {
        expect({ id, status: await client.componentStatus(id) }).toEqual({
          id,
          status: "operational",
        });
      }
      const status = await client.get<{ status: { indicator: string } }>("status.json");
      expect(status.status.indicator).toBe("critical");
      expect(await (await fetch(`${base}/status`)).text()).toContain("Major outage");

      cluster.start("forms");
      await eventually(async () => (await client.componentStatus("forms")) === "operational", {
        message: "forms operational again",
        timeoutMs: OUTAGE_WITHIN_MS,
        everyMs: 500,
      });
      // The day's bar counts the outage.
      await eventually(
        async () =>
          /Forms and newsletters[\s\S]*?title="[^"]*: (\d+\.\d)% up"/.test(
            await (await fetch(`${base}/status`)).text(),
          ),
        { message: "the outage in today's bar", timeoutMs: 10_000, everyMs: 500 },
      );
    },
    OUTAGE_WITHIN_MS * 2 + 30_000,
  );

  test("a client written from Statuspage's documentation reads every endpoint", async () => {
    const opened = await admin("POST", "/status/incidents", {
      name: "Slow client API",
      impact: "minor",
      status: "identified",
      body: "Some answers take seconds.",
      components: [{ id: "client-api", status: "degraded_performance" }],
    });
    await admin("POST", "/status/incidents", {
      kind: "maintenance",
      name: "Network upgrade",
      body: "A few seconds of errors are possible.",
      scheduled_for: "2031-03-01T02:00:00Z",
      scheduled_until: "2031-03-01T03:00:00Z",
      components: [{ id: "webhooks", status: "under_maintenance" }],
    });
    const summary = await eventually(
      () =>
        client.get<{
          incidents: Incident[];
          scheduled_maintenances: Incident[];
          status: { indicator: string };
          components: { id: string; status: string }[];
        }>("summary.json"),
      (answer) => answer.incidents.length === 1 && answer.scheduled_maintenances.length === 1,
      {
        message: "the incident and the maintenance in summary.json",
        timeoutMs: 15_000,
        everyMs: 500,
      },
    );
    expect(summary.incidents[0]!.id).toBe(opened.id);
    expect(summary.incidents[0]!.shortlink).toMatch(new RegExp(`/status/incidents/${opened.id}$`));
    expect(summary.status.indicator).toBe("minor");
    expect(summary.components.find((c) => c.id === "client-api")!.status).toBe(
      "degraded_performance",
    );
    expect(summary.scheduled_maintenances[0]).toMatchObject({
      name: "Network upgrade",
      status: "scheduled",
      scheduled_for: "2031-03-01T02:00:00.000Z",
    });
    await client.get("status.json");
    const incidents = await client.get<{ incidents: Incident[] }>("incidents.json");
    expect(incidents.incidents.map((i) => i.name)).toEqual(["Slow client API"]);
    const maintenances = await client.get<{ scheduled_maintenances: Incident[] }>(
      "scheduled-maintenances.json",
    );
    expect(maintenances.scheduled_maintenances).toHaveLength(1);

    await admin("POST", `/status/incidents/${opened.id}/updates`, {
      status: "resolved",
      body: "Answers are fast again.",
    });
    await eventually(
      () => client.get<{ incidents: Incident[] }>("summary.json"),
      (answer) => answer.incidents.length === 0,
      { message: "no unresolved incident", timeoutMs: 15_000, everyMs: 500 },
    );
    // Each change reached the bus once, in order, in the contract's shape.
    const events = await eventually(
      () => heard.filter((event) => Value.Check(StatusIncidentUpdatedEvent, event)),
      (list) => list.length === 3,
      { message: "three status.incident_updated events on the bus", timeoutMs: 15_000 },
    );
    expect(
      (events as StatusIncidentUpdatedEvent[]).map((event) => [
        event.data.incident.name,
        event.data.update.status,
      ]),
    ).toEqual([
      ["Slow client API", "identified"],
      ["Network upgrade", "scheduled"],
      ["Slow client API", "resolved"],
    ]);
    const resolved = (await client.get<{ incidents: Incident[] }>("incidents.json")).incidents[0]!;
    expect(resolved.status).toBe("resolved");
    expect(resolved.incident_updates.map((u) => u.status)).toEqual(["resolved", "identified"]);
    const response = await fetch(`${base}/api/v2/summary.json`);
    expect(response.headers.get("cache-control")).toMatch(/^public, max-age=\d+$/);
  });

  test.skipIf(!existsSync(CHROMIUM))(
    "the page in Chromium: axe-clean, usable at 390 px, no script, the subscribe form labelled",
    async () => {
      const browser = await launchChromium();
      try {
        // As a phone without script: everything is there.
        const phone = await browser.newContext({
          viewport: { width: 390, height: 844 },
          javaScriptEnabled: false,
        });
        const page = await phone.newPage();
        const answer = await page.goto(`${base}/status`);
        expect(answer!.status()).toBe(200);
        expect(await page.locator("script").count()).toBe(0);
        expect(await page.locator("h1").textContent()).toBe("Newsroom status");
        expect(await page.getByLabel("Email").getAttribute("name")).toBe("email");
        expect(await page.locator("form").getAttribute("action")).toBe(
          "/v1/public/status/subscribe",
        );
        const width = await page
          .evaluate(() => document.documentElement.scrollWidth)
          .catch(() => null);
        if (width !== null) expect(width).toBeLessThanOrEqual(390);
        await phone.close();
        // The incident the tests above opened and resolved has a page of its own.
        const listed = (await (await fetch(`${base}/api/v2/incidents.json`)).json()) as {
          incidents: { id: string; name: string }[];
        };
        const incident = listed.incidents[0]!;
        // axe-core needs script of its own: a context that lets the test inject it.
        for (const viewport of [
          { width: 390, height: 844 },
          { width: 1280, height: 900 },
        ]) {
          const context = await browser.newContext({ viewport, bypassCSP: true });
          const checked = await context.newPage();
          for (const path of ["/status", `/status/incidents/${incident.id}`]) {
            const shown = await checked.goto(`${base}${path}`);
            expect(shown!.status()).toBe(200);
            await expectAccessible(checked);
            const narrow = await checked.evaluate(() => document.documentElement.scrollWidth);
            expect(narrow).toBeLessThanOrEqual(viewport.width);
          }
          expect(await checked.locator("h1").textContent()).toContain(incident.name);
          await context.close();
        }
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  test("the database cut away: the page answers 200 with the status last known, and says so", async () => {
    const before = await (await fetch(`${base}/status`)).text();
    expect(before).not.toContain("We cannot reach our database");
    proxy.cut();
    try {
      const page = await eventually(
        async () => {
          const response = await fetch(`${base}/status`, { signal: AbortSignal.timeout(10_000) });
          expect(response.status).toBe(200);
          const text = await response.text();
          return text.includes("We cannot reach our database") ? text : undefined;
        },
        { message: "the notice on the page", timeoutMs: 30_000, everyMs: 500 },
      );
      expect(page).toMatch(/this is the status as of \d\d:\d\d UTC/);
      expect(page).toContain("Forms and newsletters");
      const json = await fetch(`${base}/api/v2/components.json`);
      expect(json.status).toBe(200);
      expect(((await json.json()) as { components: unknown[] }).components).toHaveLength(6);
    } finally {
      proxy.restore();
    }
    await eventually(
      async () => !(await (await fetch(`${base}/status`)).text()).includes("We cannot reach"),
      { message: "the notice gone with the database back", timeoutMs: 30_000, everyMs: 500 },
    );
  }, 90_000);

  test("the workspace stopped: the gateway answers the page and the JSON it last saw", async () => {
    await fetch(`${base}/api/v2/summary.json`);
    const workspace = cluster.processes.get("workspace")!;
    workspace.kill("SIGTERM");
    await workspace.exited;
    const page = await fetch(`${base}/status`);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("public, max-age=10");
    expect(await page.text()).toContain("Forms and newsletters");
    const summary = await client.get<{ components: unknown[] }>("summary.json");
    expect(summary.components).toHaveLength(6);
    // The web app has no kept copy: the gateway says it cannot reach it.
    expect((await fetch(`${base}/app/sign-in`)).status).toBe(503);
  });
});
