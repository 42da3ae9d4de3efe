import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  statusComponents,
  statusDailyUptime,
  statusOutboxEvents,
} from "@newsroom/shared/db/schema";
import { type TestDatabase, testDatabase } from "@newsroom/shared/testing/database";
import { eq } from "drizzle-orm";
import { type ComponentId, THRESHOLDS } from "../src/status/model.ts";
import { type ProbeTargets, probeAll, recordRound, statesOf } from "../src/status/prober.ts";

/** A local server answering `/health/ready` and the reads as told. */
function fakeService(answer: (path: string) => Promise<Response> | Response) {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => answer(new URL(request.url).pathname),
  });
}

describe("the status prober", () => {
  let database: TestDatabase;
  const servers: ReturnType<typeof Bun.serve>[] = [];
  beforeAll(async () => {
    database = await testDatabase();
  });
  afterAll(async () => {
    for (const server of servers) server.stop(true);
    await database.close();
  });

  test("a process not ready, one unreachable, a slow read and an old outbox: each component's state", async () => {
    const ready = fakeService(() => new Response("{}", { status: 200 }));
    const notReady = fakeService(() => new Response("{}", { status: 503 }));
    const slowGateway = fakeService(async (path) => {
      if (path === "/newsroom") await Bun.sleep(THRESHOLDS.slowReadMs + 300);
      return new Response("ok");
    });
    servers.push(ready, notReady, slowGateway);
    const gone = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const goneUrl = `http://127.0.0.1:${gone.port}`;
    gone.stop(true);
    // An unsent status event two minutes old.
    await database.db.insert(statusOutboxEvents).values({
      id: crypto.randomUUID(),
      type: "status.incident_updated",
      payload: {},
      createdAt: new Date(Date.now() - 120_000),
    });
    const targets: ProbeTargets = {
      processes: [
        {
          name: "public-read",
          components: ["public-newsroom", "hosted-newsrooms"],
          url: ready.url.href,
        },
        { name: "forms", components: ["forms"], url: notReady.url.href },
        { name: "client-api", components: ["client-api"], url: goneUrl },
        { name: "webhooks", components: ["webhooks"], url: ready.url.href },
        { name: "workspace", components: ["workspace"], ready: async () => {} },
      ],
      gatewayUrl: slowGateway.url.href,
      reads: [
        { path: "/newsroom", components: ["public-newsroom"] },
        { path: "/newsrooms", components: ["hosted-newsrooms"] },
      ],
      deliveryQueue: async () => ({ oldest_due_seconds: THRESHOLDS.deliveryLagOutageSeconds + 1 }),
    };
    const states = statesOf(await probeAll(database.db, targets));
    const of = (id: ComponentId) => states.get(id)!;
    expect(of("forms").state).toBe("major_outage");
    expect(of("forms").detail).toContain("not ready (503)");
    expect(of("client-api").state).toBe("major_outage");
    expect(of("client-api").detail).toContain("unreachable");
    expect(of("public-newsroom").state).toBe("degraded_performance");
    expect(of("hosted-newsrooms").state).toBe("operational");
    // The queue's lag past its outage threshold is worse than the outbox's two minutes.
    expect(of("webhooks").state).toBe("partial_outage");
    expect(of("workspace").state).toBe("operational");
  }, 30_000);

  test("replicas probing at once record one round; a state kept does not move updated_at", async () => {
    const states = statesOf([
      {
        probe: "forms readiness",
        components: ["forms"],
        state: "major_outage",
        detail: "forms: down",
      },
    ]);
    const at = new Date("2026-11-27T10:00:00Z");
    const results = await Promise.all([
      recordRound(database.db, states, 30_000, at),
      recordRound(database.db, states, 30_000, new Date(at.getTime() + 1_000)),
    ]);
    expect(results.sort()).toEqual([false, true]);
    const [day] = await database.db
      .select()
      .from(statusDailyUptime)
      .where(eq(statusDailyUptime.componentId, "forms"));
    expect(day).toMatchObject({ day: "2026-11-27", rounds: 1, majorOutage: 1 });

    const later = new Date(at.getTime() + 30_000);
    expect(await recordRound(database.db, states, 30_000, later)).toBe(true);
    const [forms] = await database.db
      .select()
      .from(statusComponents)
      .where(eq(statusComponents.id, "forms"));
    expect(forms!.derivedState).toBe("major_outage");
    expect(forms!.updatedAt.toISOString()).toBe(at.toISOString());
    expect(forms!.checkedAt!.toISOString()).toBe(later.toISOString());
  });
});
