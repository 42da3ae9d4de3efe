import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditEvents, statusOutboxEvents } from "@newsroom/shared/db/schema";
import type { BusEvent } from "@newsroom/shared/events";
import { EVENT, StatusIncidentUpdatedEvent } from "@newsroom/shared/events";
import { Value } from "@sinclair/typebox/value";
import { asc, eq } from "drizzle-orm";
import { relayStatusOnce } from "../src/status/outbox-relay.ts";
import { type Harness, workspaceHarness } from "./support/harness.ts";

describe("status page incidents through the internal API", () => {
  let h: Harness;
  const heard: BusEvent[] = [];
  beforeAll(async () => {
    h = await workspaceHarness();
    await h.call("POST", "/orgs", { slug: "armage", name: "Armage" });
    await h.bus.subscribe(
      async (event) => {
        heard.push(event);
      },
      { durable: "status-test", types: [EVENT.statusIncidentUpdated] },
    );
  });
  afterAll(async () => {
    await h.close();
  });

  test("an incident, its update and its resolution: rows, one contract event each, in order, audited", async () => {
    const created = await h.call("POST", "/status/incidents", {
      name: "Webhooks delayed",
      impact: "major",
      body: "Deliveries are late; we are looking into it.",
      components: [{ id: "webhooks", status: "partial_outage" }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body.status).toBe("investigating");
    expect(created.body.shortlink).toBe(`http://localhost:3000/status/incidents/${id}`);
    expect(created.body.incident_updates).toHaveLength(1);
    expect(created.body.incident_updates[0].affected_components).toEqual([
      {
        code: "webhooks",
        name: "Webhooks",
        old_status: "operational",
        new_status: "partial_outage",
      },
    ]);

    const updated = await h.call("POST", `/status/incidents/${id}/updates`, {
      status: "monitoring",
      body: "A fix is out; we are watching the queue drain.",
    });
    expect(updated.status).toBe(201);
    expect(updated.body.monitoring_at).toEqual(expect.any(String));
    const resolved = await h.call("POST", `/status/incidents/${id}/updates`, {
      status: "resolved",
      body: "Deliveries are on time again.",
    });
    expect(resolved.body.status).toBe("resolved");
    expect(resolved.body.resolved_at).toEqual(expect.any(String));
    expect(resolved.body.components[0].status).toBe("operational");
    expect(resolved.body.incident_updates.map((u: { status: string }) => u.status)).toEqual([
      "resolved",
      "monitoring",
      "investigating",
    ]);

    const rows = await h.database.db
      .select()
      .from(statusOutboxEvents)
      .orderBy(asc(statusOutboxEvents.createdAt));
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(Value.Check(StatusIncidentUpdatedEvent, row.payload)).toBe(true);

    expect(await relayStatusOnce(h.database.db, h.bus)).toBe(3);
    expect(await relayStatusOnce(h.database.db, h.bus)).toBe(0);
    const events = heard as StatusIncidentUpdatedEvent[];
    expect(events.map((event) => event.data.update.status)).toEqual([
      "investigating",
      "monitoring",
      "resolved",
    ]);
    expect(events[2]!.data.incident).toMatchObject({
      id,
      kind: "incident",
      status: "resolved",
      impact: "major",
      components: [{ id: "webhooks", name: "Webhooks", status: "operational" }],
    });
    expect(events[2]!.data.incident.resolved_at).toEqual(expect.any(String));

    const audited = await h.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.subjectId, id));
    expect(audited.map((row) => row.action).sort()).toEqual([
      "status.incident_created",
      "status.incident_updated",
      "status.incident_updated",
    ]);
  });

  test("a maintenance: scheduled with its window, the event names it", async () => {
    const created = await h.call("POST", "/status/incidents", {
      kind: "maintenance",
      name: "Database upgrade",
      body: "The workspace is read-only for ten minutes.",
      scheduled_for: "2030-01-10T22:00:00Z",
      scheduled_until: "2030-01-10T22:30:00Z",
      components: [{ id: "workspace", status: "under_maintenance" }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: "scheduled",
      impact: "maintenance",
      scheduled_for: "2030-01-10T22:00:00.000Z",
      scheduled_until: "2030-01-10T22:30:00.000Z",
    });
    await relayStatusOnce(h.database.db, h.bus);
    const last = heard.at(-1) as StatusIncidentUpdatedEvent;
    expect(last.data.incident.kind).toBe("maintenance");
    expect(last.data.incident.scheduled_for).toBe("2030-01-10T22:00:00.000Z");
  });
});
