import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { newId } from "@newsroom/shared/ids";
import { requireService } from "@newsroom/shared/testing/database";
import {
  genericPlanOfQuery,
  type PlanNode,
  planNodes,
  rowsReadFrom,
} from "@newsroom/shared/testing/generic-plan";
import { sql } from "drizzle-orm";
import { claimStatement, deliveredBatchStatement } from "../src/delivery/store.ts";
import { fanOutStatement, type IncomingEvent } from "../src/fan-out/store.ts";
import { type Fixture, webhooksFixture } from "./support/harness.ts";

const databaseUrl = requireService("DATABASE_URL");

/** History (deliveries delivered, events relayed, stories published) when statistics are taken. */
const HISTORY = 1_000;
/** Pending deliveries of one endpoint (due in an hour) that pile up after. */
const BACKLOG = 2_000;
/** The tables the statements read by key. */
const TABLES = ["webhook_deliveries", "outbox_events", "stories", "story_versions"];

/** How many rows the statement inserted into `table`, from its plan. */
function inserted(plan: PlanNode, table: string): number {
  const insert = planNodes(plan).find(
    (node) => node["Node Type"] === "ModifyTable" && node["Relation Name"] === table,
  );
  return insert?.Plans?.[0]?.["Actual Rows"] ?? 0;
}

/**
 * The delivery path's statements read the rows they are about by key, whatever the statistics
 * say of the queue. Measured on the plan a connection keeps for a prepared statement once it has
 * run a few times (its generic plan, made without the parameters' values) from statistics taken
 * while nothing was pending, as autovacuum may take them between two bursts, and run once a
 * backlog has piled up.
 */
describe.skipIf(!databaseUrl)("the delivery path's plans on PostgreSQL, a backlog behind", () => {
  let fx: Fixture;
  let busy: string;
  let quiet: string;

  /** `n` new events of submitted stories, as the fan-out's consumer hands them over. */
  async function incoming(n: number): Promise<IncomingEvent[]> {
    const events: IncomingEvent[] = [];
    for (let i = 0; i < n; i++) {
      const { storyId, eventId } = await fx.submitted();
      events.push({
        id: eventId,
        type: "story.submitted",
        organizationId: fx.orgId,
        storyId,
        createdAt: new Date(),
        traceParent: null,
      });
    }
    return events;
  }

  /** `n` deliveries to `endpointId`, due now, of new events. */
  async function dueDeliveries(endpointId: string, n: number) {
    const rows = [];
    for (const event of await incoming(n)) {
      rows.push(
        await fx.pendingDelivery(endpointId, {
          eventId: event.id,
          eventType: "story.submitted",
          storyId: event.storyId,
          eventCreatedAt: event.createdAt,
        }),
      );
    }
    return rows;
  }

  beforeAll(async () => {
    fx = await webhooksFixture();
    busy = (await fx.endpoint("http://127.0.0.1:9/busy", ["story.submitted"])).id;
    quiet = (await fx.endpoint("http://127.0.0.1:9/quiet", ["story.submitted"])).id;
    // A quiet moment: history only, nothing pending; the statistics are taken then.
    await fx.db.execute(sql`
      insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type,
        event_created_at, status, attempts, delivered_at, created_at)
      select gen_random_uuid(), ${fx.orgId}::uuid, ${busy}::uuid, gen_random_uuid(),
        'story.submitted', now(), 'delivered', 1, now(), now()
      from generate_series(1, ${HISTORY})`);
    await fx.db.execute(sql`
      insert into outbox_events (id, organization_id, type, created_at, published_at)
      select gen_random_uuid(), ${fx.orgId}::uuid, 'story.submitted', now(), now()
      from generate_series(1, ${HISTORY})`);
    await fx.db.execute(sql`
      with made as (
        insert into stories (id, organization_id, type, slug, status, current_version)
        select gen_random_uuid(), ${fx.orgId}::uuid, 'insight', 'history-' || n, 'published', 1
        from generate_series(1, ${HISTORY}) as n
        returning id
      )
      insert into story_versions (id, story_id, version, title)
      select gen_random_uuid(), id, 1, 'History' from made`);
    // Only the statistics taken here: none that autovacuum would take later, where it runs.
    for (const table of TABLES) {
      await fx.db.execute(sql.raw(`alter table ${table} set (autovacuum_enabled = false)`));
    }
    await fx.db.execute(sql`analyze`);
    // Then a backlog piles up.
    await fx.db.execute(sql`
      insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type,
        event_created_at, next_attempt_at, created_at)
      select gen_random_uuid(), ${fx.orgId}::uuid, ${busy}::uuid, gen_random_uuid(),
        'story.submitted', now(), now() + interval '1 hour', now()
      from generate_series(1, ${BACKLOG})`);
  });

  afterAll(() => fx.close());

  test("recording 2xx answers reads the batch's deliveries, not the backlog", async () => {
    const batch = await dueDeliveries(quiet, 3);
    const plan = await genericPlanOfQuery(
      fx.database.url!,
      deliveredBatchStatement(
        batch.map((delivery) => ({
          delivery,
          statusCode: 200,
          at: new Date(),
          durationMs: 3,
          responseBody: "ok",
        })),
      ),
    );
    // Each of the batch, once: none of the backlog.
    expect(rowsReadFrom(plan, "webhook_deliveries")).toBe(batch.length);
  });

  test("a claim reads each endpoint's next deliveries, not the backlog", async () => {
    const due = await dueDeliveries(quiet, 3);
    const plan = await genericPlanOfQuery(
      fx.database.url!,
      claimStatement(64, { workerId: newId(), leaseMs: 60_000, perEndpoint: 12 }, new Date()),
    );
    const claimed = inserted(plan, "webhook_attempts");
    expect(claimed).toBeGreaterThanOrEqual(due.length);
    expect(rowsReadFrom(plan, "webhook_deliveries")).toBeLessThan(BACKLOG / 20);
    // What they are sent with: each event's outbox row and story by its key, not the tables.
    expect(rowsReadFrom(plan, "outbox_events")).toBeLessThanOrEqual(claimed);
    expect(rowsReadFrom(plan, "stories")).toBeLessThanOrEqual(claimed);
    expect(rowsReadFrom(plan, "story_versions")).toBeLessThanOrEqual(claimed);
  });

  test("a fan-out reads its events' outbox rows, not the outbox", async () => {
    const events = await incoming(2);
    const plan = await genericPlanOfQuery(
      fx.database.url!,
      fanOutStatement(events, new Date(), {
        workerId: newId(),
        leaseMs: 60_000,
        perEndpoint: 12,
        limit: 32,
        skipEndpoints: [],
      }),
    );
    expect(inserted(plan, "webhook_deliveries")).toBe(2 * events.length);
    expect(rowsReadFrom(plan, "outbox_events")).toBeLessThanOrEqual(2 * events.length);
    expect(rowsReadFrom(plan, "webhook_deliveries")).toBeLessThan(BACKLOG / 20);
  });
});
