import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statusIncidents, statusOutboxEvents } from "@newsroom/shared/db/schema";
import { type Harness, workspaceHarness } from "./support/harness.ts";

describe("status page incidents refused", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await workspaceHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  test("each wrong field named; nothing written, no event", async () => {
    const refused = await h.call("POST", "/status/incidents", {
      name: "",
      status: "scheduled",
      impact: "apocalyptic",
      components: [
        { id: "moon", status: "operational" },
        { id: "forms", status: "on_fire" },
      ],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("validation_failed");
    expect(refused.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      "body",
      "components[0].id",
      "components[1].status",
      "impact",
      "name",
      "status",
    ]);
    const maintenance = await h.call("POST", "/status/incidents", {
      kind: "maintenance",
      name: "Upgrade",
      body: "Soon.",
      scheduled_for: "2030-01-10T22:00:00Z",
      scheduled_until: "2030-01-10T21:00:00Z",
    });
    expect(maintenance.status).toBe(422);
    expect(maintenance.body.error.fields).toEqual([
      expect.objectContaining({ field: "scheduled_until", reason: "before_start" }),
    ]);
    expect(await h.database.db.select().from(statusIncidents)).toHaveLength(0);
    expect(await h.database.db.select().from(statusOutboxEvents)).toHaveLength(0);
  });

  test("an update to no incident: 404; an incident's status on a maintenance: 422", async () => {
    const missing = await h.call(
      "POST",
      "/status/incidents/00000000-0000-4000-8000-000000000000/updates",
      {
        status: "resolved",
        body: "Done.",
      },
    );
    expect(missing.status).toBe(404);
    const created = await h.call("POST", "/status/incidents", {
      kind: "maintenance",
      name: "Upgrade",
      body: "Soon.",
      scheduled_for: "2030-01-10T22:00:00Z",
      scheduled_until: "2030-01-10T23:00:00Z",
    });
    const wrong = await h.call("POST", `/status/incidents/${created.body.id}/updates`, {
      status: "resolved",
      body: "Done.",
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.fields[0].field).toBe("status");
  });

  test("without the admin token: 401", async () => {
    const anonymous = await h.call("POST", "/status/incidents", { name: "x", body: "y" }, null);
    expect(anonymous.status).toBe(401);
  });
});
