import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEvents } from "@newsroom/shared/db/schema";
import { eventually } from "@newsroom/shared/testing/eventually";
import { parseFeed } from "@rowanmanning/feed-parser";
import { like } from "drizzle-orm";
import { unique, type WebClient, type WebHarness, webHarness } from "./support/web-app.ts";

interface Component {
  id: string;
  status: string;
  updated_at: string;
}

async function json(h: WebHarness, path: string) {
  const response = await fetch(`${h.url}${path}`);
  expect(response.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  return (await response.json()) as any;
}

async function componentsNow(h: WebHarness): Promise<Component[]> {
  return (await json(h, "/api/v2/components.json")).components;
}

describe("the status page in the workspace", () => {
  let h: WebHarness;
  let staff: WebClient;
  beforeAll(async () => {
    h = await webHarness({ STATUS_PROBE_INTERVAL_SECONDS: "1" });
    await h.admin("POST", "/orgs", { slug: "armage", name: "House" });
    const email = unique("staff");
    await h.admin("POST", "/orgs/armage/members", { email, role: "admin" });
    staff = await h.signedIn(email);
  });
  afterAll(async () => {
    await h.close();
  });

  test("the prober records every component; the page and the JSON show them", async () => {
    // The first round recorded: today's bar of every component counts it.
    await eventually(
      async () => {
        const page = await (await fetch(`${h.url}/status`)).text();
        return (page.match(/: 100% up"/g) ?? []).length === 6 ? true : undefined;
      },
      { message: "a probe round on the page", timeoutMs: 30_000 },
    );
    const components = await componentsNow(h);
    expect(components.map((c) => c.status)).toEqual(Array(6).fill("operational"));
    expect(components.map((c) => c.id)).toEqual([
      "public-newsroom",
      "hosted-newsrooms",
      "client-api",
      "forms",
      "webhooks",
      "workspace",
    ]);
    const page = await fetch(`${h.url}/status`);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("public, max-age=30");
    const html = await page.text();
    expect(html).toContain("All Systems Operational");
    expect(html).toContain('action="/v1/public/status/subscribe"');
    // Each component has its 90 labelled daily bars; today's is counted.
    const bars = html.match(/<li class="bar [a-z]+" title="[^"]+">/g) ?? [];
    expect(bars).toHaveLength(6 * 90);
    expect(html).toMatch(/title="\d{1,2} [A-Z][a-z]{2}: 100% up"/);
    const etag = page.headers.get("etag")!;
    expect(etag).toBeTruthy();
    const again = await fetch(`${h.url}/status`, { headers: { "if-none-match": etag } });
    expect([200, 304]).toContain(again.status);
  });

  test("staff open an incident, update and resolve it: page, JSON and feeds follow", async () => {
    const form = await staff.get("/app/status/incidents/new");
    expect(form.status).toBe(200);
    const created = await staff.post("/app/status/incidents", {
      kind: "incident",
      name: "Slow webhooks",
      impact: "major",
      status: "investigating",
      body: "Deliveries are running late.",
      component_webhooks: "partial_outage",
    });
    expect(created.status).toBe(303);
    const location = created.headers.get("location")!;
    const id = /\/app\/status\/incidents\/([0-9a-f-]{36})/.exec(location)![1]!;

    const summary = await eventually(
      async () => {
        const body = await json(h, "/api/v2/summary.json");
        return body.incidents.length === 1 ? body : undefined;
      },
      { message: "the incident in summary.json" },
    );
    expect(summary.status).toEqual({ indicator: "major", description: "Partial System Outage" });
    expect(summary.incidents[0]).toMatchObject({
      id,
      name: "Slow webhooks",
      status: "investigating",
    });
    expect(summary.components.find((c: Component) => c.id === "webhooks").status).toBe(
      "partial_outage",
    );
    expect(await (await fetch(`${h.url}/status`)).text()).toContain("Slow webhooks");
    const publicPage = await fetch(`${h.url}/status/incidents/${id}`);
    expect(publicPage.status).toBe(200);
    expect(await publicPage.text()).toContain("Deliveries are running late.");

    await staff.get(`/app/status/incidents/${id}`);
    const resolved = await staff.post(`/app/status/incidents/${id}/updates`, {
      status: "resolved",
      body: "Deliveries are on time.",
      component_webhooks: "partial_outage",
    });
    expect(resolved.status).toBe(303);
    const after = await eventually(
      async () => {
        const body = await json(h, "/api/v2/summary.json");
        return body.incidents.length === 0 ? body : undefined;
      },
      { message: "no unresolved incident" },
    );
    expect(after.status.indicator).toBe("none");
    const incidents = (await json(h, "/api/v2/incidents.json")).incidents;
    expect(incidents[0].status).toBe("resolved");
    expect(incidents[0].incident_updates.map((u: { body: string }) => u.body)).toEqual([
      "Deliveries are on time.",
      "Deliveries are running late.",
    ]);

    const atom = parseFeed(await (await fetch(`${h.url}/status/history.atom`)).text());
    expect(atom.items.map((item) => item.title)).toEqual([
      "Slow webhooks: Resolved",
      "Slow webhooks: Investigating",
    ]);
    expect(atom.items[0]!.url).toBe(
      `http://localhost:${new URL(h.url).port}/status/incidents/${id}`,
    );
    const rss = await fetch(`${h.url}/status/history.rss`);
    expect(rss.headers.get("content-type")).toContain("application/rss+xml");
    const parsedRss = parseFeed(await rss.text());
    expect(parsedRss.items[1]!.description).toBe("Deliveries are running late.");

    const audited = await h.runtime.database.db
      .select()
      .from(auditEvents)
      .where(like(auditEvents.action, "status.%"));
    expect(audited.map((row) => row.action).sort()).toEqual([
      "status.incident_created",
      "status.incident_updated",
    ]);
  });

  test("staff set a component's state over the probes' and clear it", async () => {
    await staff.get("/app/status");
    const set = await staff.post("/app/status/components/forms/override", {
      state: "under_maintenance",
      note: "Moving the mail provider.",
    });
    expect(set.status).toBe(303);
    const forms = (await componentsNow(h)).find((c) => c.id === "forms")!;
    expect(forms.status).toBe("under_maintenance");
    expect(await (await fetch(`${h.url}/status`)).text()).toContain("Moving the mail provider.");
    await staff.get("/app/status");
    await staff.post("/app/status/components/forms/override", { state: "" });
    expect((await componentsNow(h)).find((c) => c.id === "forms")!.status).toBe("operational");
  });

  test("a maintenance scheduled through the form: scheduled-maintenances.json", async () => {
    await staff.get("/app/status/incidents/new?kind=maintenance");
    const created = await staff.post("/app/status/incidents", {
      kind: "maintenance",
      name: "Database upgrade",
      impact: "maintenance",
      status: "scheduled",
      body: "Ten minutes read-only.",
      scheduled_for: "2030-01-10T22:00",
      scheduled_until: "2030-01-10T22:10",
      component_workspace: "under_maintenance",
    });
    expect(created.status).toBe(303);
    const list = (await json(h, "/api/v2/scheduled-maintenances.json")).scheduled_maintenances;
    expect(list[0]).toMatchObject({
      name: "Database upgrade",
      status: "scheduled",
      scheduled_for: "2030-01-10T22:00:00.000Z",
      scheduled_until: "2030-01-10T22:10:00.000Z",
    });
    // Scheduled, not in progress: the workspace is not shown under maintenance yet.
    expect((await componentsNow(h)).find((c) => c.id === "workspace")!.status).toBe("operational");
  });
});
