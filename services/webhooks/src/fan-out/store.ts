import type { Queryable } from "@newsroom/shared/db/index";
import { executePrepared } from "@newsroom/shared/db/prepared";
import {
  outboxEvents,
  webhookDeliveries,
  webhookFannedOutEvents,
} from "@newsroom/shared/db/schema";
import {
  integerArray,
  nullableUuidArray,
  textArray,
  timestampArray,
  tokenArray,
  uuidArray,
} from "@newsroom/shared/db/sql-arrays";
import { type SubscribableEventType, WEBHOOK_EVENT_TYPES } from "@newsroom/shared/events";
import { newId } from "@newsroom/shared/ids";
import {
  and,
  asc,
  eq,
  getTableColumns,
  gte,
  inArray,
  lt,
  notExists,
  type SQL,
  sql,
} from "drizzle-orm";
import {
  attemptsOpenedForClaimed,
  type ClaimRequest,
  claimedRows,
  leasesOfPicked,
  type OpenedClaim,
  openedClaimOf,
  readsOfClaimed,
} from "../delivery/store.ts";

export type OutboxRow = typeof outboxEvents.$inferSelect;

// The fan-out's statements are prepared (each connection parses them once): unprepared, the
// driver first asks the server for their parameters' types, a round trip per statement. Their
// lists are single array parameters, so their text does not change with a batch's size.

/**
 * Records these events as fanned out at `at`, unless recorded already; returns the ids this call
 * recorded. Recording comes first in the fan-out transaction: a transaction that records an event
 * another one is recording waits for it, and then finds it recorded, so the consumer and the
 * reconciler (on any replica) never both fan out one event. Ids in order, so that two batches
 * sharing events wait on them in the same order.
 */
export async function recordFannedOut(
  tx: Queryable,
  eventIds: string[],
  at: Date,
): Promise<string[]> {
  if (eventIds.length === 0) return [];
  const rows = await tx
    .insert(webhookFannedOutEvents)
    .select(sql`
      select v.event_id, ${at.toISOString()}::timestamptz
      from unnest(${uuidArray([...eventIds].sort())}) as v(event_id)`)
    .onConflictDoNothing({ target: webhookFannedOutEvents.eventId })
    .returning({ eventId: webhookFannedOutEvents.eventId })
    .prepare("webhooks_record_fanned_out")
    .execute();
  return rows.map((row) => row.eventId);
}

export interface DeliveryEvent {
  id: string;
  type: SubscribableEventType;
  storyId: string | null;
  createdAt: Date;
  /** The trace its attempts join (`webhook_deliveries.trace_parent`). */
  traceParent: string | null;
  /** The story's event counter after this event; null for events recorded before it existed. */
  sequence: number | null;
}

/**
 * When a new delivery `v` is due: now, or for one in story order, not before the retry of an
 * earlier pending event of its story to the same endpoint (it would only wait for it). A claim
 * then does not read it over and over meanwhile. Unordered deliveries skip the lookup.
 *
 * The story's first pending delivery (the one a claim takes, so the one whose failed
 * attempt may be being recorded right now) is read with a "key share" lock, which the
 * recording's "for update" of that row and this lock wait for each other. Without it, a fan-out
 * reading the row before the recording commits, and committing after the recording held the
 * story's later events (its hold cannot see the uncommitted delivery), left the new delivery
 * due now, before the retry. With it: a fan-out that comes second waits for the recording to
 * commit and reads the retry's time (a locked row is read as last committed); a recording that
 * comes second waits for the fan-out to commit, and its hold then sees the new delivery. The lock
 * does not hold up claims (they skip a locked row), recordings of 2xx, or other fan-outs.
 */
function dueBehindEarlierEventsOfItsStory(now: Date) {
  const at = sql`${now.toISOString()}::timestamptz`;
  return sql`case when v.story_order is null then ${at} else greatest(${at}, (
      select max(earlier.next_attempt_at) from webhook_deliveries as earlier
      where earlier.endpoint_id = v.endpoint_id and earlier.story_id = v.story_id
        and earlier.status = 'pending' and earlier.story_order < v.story_order), (
      select first.next_attempt_at from webhook_deliveries as first
      where first.endpoint_id = v.endpoint_id and first.story_id = v.story_id
        and first.status = 'pending' and first.story_order < v.story_order
      order by first.story_order limit 1
      for key share of first)) end`;
}

/** `webhook_deliveries`' columns, in the order of its schema (drizzle's `insert ... select`). */
const DELIVERY_COLUMNS = sql.raw(
  Object.values(getTableColumns(webhookDeliveries))
    .map((column) => `"${column.name}"`)
    .join(", "),
);

/**
 * A new pending delivery's columns, every one of the table in its schema's order
 * (`DELIVERY_COLUMNS`), from a row `v` (id, organization_id, endpoint_id, event_id, event_type,
 * story_id, event_created_at, trace_parent, story_order), due at `due` (by default as
 * `dueBehindEarlierEventsOfItsStory` makes it). With `claimedUntil`, a condition on
 * `v` and a time: the rows it holds for are inserted claimed until then, their first attempt
 * counted (its open attempt written beside them).
 */
function pendingDeliveryColumns(
  now: Date,
  claimedUntil?: { where: SQL; until: Date },
  due: SQL = dueBehindEarlierEventsOfItsStory(now),
) {
  const attempts = claimedUntil ? sql`case when ${claimedUntil.where} then 1 else 0 end` : sql`0`;
  const lockedUntil = claimedUntil
    ? sql`case when ${claimedUntil.where} then ${claimedUntil.until.toISOString()}::timestamptz end`
    : sql`null`;
  return sql`select v.id, v.organization_id, v.endpoint_id, v.event_id, v.event_type, v.story_id,
             v.event_created_at, 'pending', ${attempts}, null, null, null, ${due},
             ${lockedUntil}, ${now.toISOString()}::timestamptz, null, v.trace_parent, v.story_order`;
}

/**
 * Pending deliveries, due now (an event in story order: see above), for several events at once
 * (one statement); an endpoint that
 * already has a delivery of an event keeps it. `storyOrder` is the event's place in its story for
 * an endpoint that delivers in story order, else null. Returns the event id of each new row.
 */
export async function insertManyDeliveries(
  tx: Queryable,
  wanted: {
    organizationId: string;
    endpointId: string;
    event: DeliveryEvent;
    storyOrder: number | null;
  }[],
  now: Date,
): Promise<string[]> {
  if (wanted.length === 0) return [];
  const column = <T>(pick: (item: (typeof wanted)[number]) => T) => wanted.map(pick);
  const rows = await tx
    .insert(webhookDeliveries)
    .select(sql`
      ${pendingDeliveryColumns(now)}
      from unnest(
        ${uuidArray(column(() => newId()))},
        ${uuidArray(column((item) => item.organizationId))},
        ${uuidArray(column((item) => item.endpointId))},
        ${uuidArray(column((item) => item.event.id))},
        ${tokenArray(column((item) => item.event.type))},
        ${nullableUuidArray(column((item) => item.event.storyId))},
        ${timestampArray(column((item) => item.event.createdAt))},
        ${textArray(column((item) => item.event.traceParent))},
        ${integerArray(column((item) => item.storyOrder))}
      ) as v(id, organization_id, endpoint_id, event_id, event_type, story_id, event_created_at,
             trace_parent, story_order)`)
    .onConflictDoNothing({ target: [webhookDeliveries.endpointId, webhookDeliveries.eventId] })
    .returning({ eventId: webhookDeliveries.eventId })
    .prepare("webhooks_insert_deliveries")
    .execute();
  return rows.map((row) => row.eventId);
}

/** A story event as a message or the reconciler hands it over, with the trace it joins. */
export interface IncomingEvent {
  id: string;
  type: string;
  organizationId: string;
  storyId: string | null;
  createdAt: Date;
  /** The trace its attempts join; else the one the outbox row names. */
  traceParent: string | null;
}

/**
 * What a fan-out may claim of the deliveries it inserts, for the dispatcher of its own process
 * (`DeliveryWorker.offerToFanOut`): up to `limit` of them, at most `perEndpoint` of one endpoint,
 * none of `skipEndpoints`.
 */
export interface FanOutClaim extends Pick<ClaimRequest, "workerId" | "leaseMs" | "perEndpoint"> {
  limit: number;
  skipEndpoints: string[];
}

/**
 * The dispatcher of the fan-out's process (`DeliveryWorker`), which takes the deliveries a
 * fan-out statement claims for it.
 */
export interface FanOutClaimer {
  /** What the next fan-out statement may claim, reserved until `claimedByFanOut`; null: nothing. */
  offerToFanOut(): FanOutClaim | null;
  /**
   * The statement of an offer ended: what it claimed is the worker's to send (null: the
   * statement failed, and nothing is known to be claimed).
   */
  claimedByFanOut(offer: FanOutClaim, claimed: OpenedClaim | null): void;
}

/** A fan-out that claims nothing. */
const NO_CLAIM: FanOutClaim = {
  workerId: "00000000-0000-0000-0000-000000000000",
  leaseMs: 0,
  perEndpoint: 0,
  limit: 0,
  skipEndpoints: [],
};

/** What one fan-out statement did. */
export interface FannedOut {
  /** Per event this call recorded as fanned out, how many deliveries it created. */
  events: { eventId: string; created: number }[];
  /** The deliveries it claimed, their attempts open, with what they are sent with. */
  claimed: OpenedClaim;
}

/**
 * Story events fanned out in one statement (its own transaction): records each as fanned out
 * unless it is already (`recordFannedOut`'s rule: first, in id order), reads its outbox row
 * (whose fields win over the message's), and inserts one pending delivery per enabled endpoint
 * of its organization subscribed to its type (and, for an endpoint limited to topics, whose
 * story has one of them as it reads now), due as `insertManyDeliveries` makes them. Events must
 * be distinct.
 *
 * With a `claim`, it also claims some of the deliveries it inserts for the dispatcher of its
 * process, as a claim would (`claimAndOpenAttempts`), so that their first attempt needs no claim
 * statement of its own: inserted claimed with their attempt open, their endpoints' leases taken,
 * and read back with what they are sent with. Only deliveries a claim would take at once and in
 * any order: of an endpoint without a rate, not in story order, whose lease is free, lapsed or
 * the worker's, and with no due delivery left unclaimed (those go first, through the claims, so
 * a new event does not overtake a backlog this statement can see).
 *
 * One statement rather than a transaction of five: a fan-out under load spent most of its time
 * waiting between round trips (p50 10 ms and p99 66 ms for a few events at 2,000 deliveries a
 * second), and each round trip is a write to the database's socket on both sides.
 */
export async function fanOutStoryEvents(
  db: Queryable,
  events: IncomingEvent[],
  now: Date,
  claim: FanOutClaim = NO_CLAIM,
): Promise<FannedOut> {
  if (events.length === 0) return { events: [], claimed: openedClaimOf([]) };
  const rows = await executePrepared<Record<string, unknown>>(
    db,
    "webhooks_fan_out_story_events",
    fanOutStatement(events, now, claim),
  );
  const created = new Map<string, number>();
  for (const row of rows) created.set(row["fan.event_id"] as string, row["fan.created"] as number);
  return {
    events: [...created].map(([eventId, n]) => ({ eventId, created: n })),
    claimed: openedClaimOf(rows.filter((row) => row.id !== null && row.id !== undefined)),
  };
}

/** `fanOutStoryEvents`' statement. */
export function fanOutStatement(events: IncomingEvent[], now: Date, claim: FanOutClaim): SQL {
  const column = <T>(pick: (event: IncomingEvent) => T) => events.map(pick);
  const at = sql`${now.toISOString()}::timestamptz`;
  return sql`
      with incoming as (
        select * from unnest(
          ${uuidArray(column((event) => event.id))},
          ${tokenArray(column((event) => event.type))},
          ${uuidArray(column((event) => event.organizationId))},
          ${nullableUuidArray(column((event) => event.storyId))},
          ${timestampArray(column((event) => event.createdAt))},
          ${textArray(column((event) => event.traceParent))}
        ) as m(id, type, organization_id, story_id, created_at, trace_parent)
      ),
      recorded as (
        insert into webhook_fanned_out_events (event_id, fanned_out_at)
        select id, ${at} from incoming order by id
        on conflict (event_id) do nothing
        returning event_id
      ),
      -- Every record written before any delivery: a statement's CTE runs lazily, row by row
      -- with what reads it, and the aggregate reads it whole first. Without it, the first event's
      -- deliveries (and their key-share locks) were written while a later event's record waited
      -- on another fan-out's transaction.
      recorded_first as (select unnest(array_agg(event_id)) as event_id from recorded),
      fanned as (
        select i.id,
               case when o.id is null then i.type else o.type end as type,
               case when o.id is null then i.organization_id else o.organization_id end
                 as organization_id,
               case when o.id is null then i.story_id else o.story_id end as story_id,
               case when o.id is null then i.created_at else o.created_at end as created_at,
               coalesce(i.trace_parent, o.trace_parent) as trace_parent,
               o.sequence
        from recorded_first r
        join incoming i on i.id = r.event_id
        -- Each event's row by its primary key, one probe each ("limit 1" keeps the probe from
        -- being planned as a join): joined on the ids, a plan made from the outbox's
        -- statistics read the whole outbox, every event ever written, at each fan-out.
        left join lateral (
          select * from outbox_events where outbox_events.id = r.event_id limit 1
        ) as o on true
      ),
      subscribed as (
        select gen_random_uuid() as id, e.organization_id, endpoint.id as endpoint_id,
               e.id as event_id, e.type as event_type, e.story_id,
               e.created_at as event_created_at, e.trace_parent,
               case when endpoint.ordering = 'story' and e.story_id is not null
                 then e.sequence end as story_order,
               endpoint.rate_limit_per_second is null as unpaced
        from fanned e
        join webhook_endpoints endpoint
          on endpoint.organization_id = e.organization_id and endpoint.status = 'enabled'
          and endpoint.events @> jsonb_build_array(e.type)
        where endpoint.topics is null or exists (
          select 1 from story_topics st join topics t on t.id = st.topic_id
          where st.story_id = e.story_id and t.organization_id = e.organization_id
            and endpoint.topics @> jsonb_build_array(t.slug))
      ),
      -- Each with its due time, read (and the key-share lock it takes, see
      -- \`dueBehindEarlierEventsOfItsStory\`) before any lease is locked below: a wait there holds
      -- no lease row that claims and renewals would then wait on.
      v as materialized (
        select v.*, ${dueBehindEarlierEventsOfItsStory(now)} as due_at from subscribed as v
      ),
      -- The deliveries this fan-out may claim, the first of each endpoint first; not those of an
      -- endpoint whose lease another worker holds (its row is not even locked).
      offered as materialized (
        select v.id, v.endpoint_id,
          row_number() over (partition by v.endpoint_id order by v.event_created_at, v.event_id)
            as nth
        from v
        where ${claim.limit}::int > 0 and v.unpaced and v.story_order is null
          and v.endpoint_id <> all(${uuidArray(claim.skipEndpoints)})
          and not exists (
            select 1 from webhook_endpoint_leases as held
            where held.endpoint_id = v.endpoint_id and held.leased_until > ${at}
              and held.worker_id <> ${claim.workerId}::uuid)
          and not exists (
            select 1 from webhook_deliveries as waiting
            where waiting.endpoint_id = v.endpoint_id and waiting.status = 'pending'
              and waiting.next_attempt_at <= ${at}
              and (waiting.locked_until is null or waiting.locked_until < ${at}))
      ),
      picked as materialized (
        select id, endpoint_id from offered where nth <= ${claim.perEndpoint}::int
        order by nth, endpoint_id limit ${claim.limit}::int
      ),
      ${leasesOfPicked(claim, now)},
      taken as materialized (
        select picked.id from picked join leased on leased.endpoint_id = picked.endpoint_id
      ),
      inserted as (
        insert into webhook_deliveries (${DELIVERY_COLUMNS})
        ${pendingDeliveryColumns(
          now,
          {
            where: sql`v.id in (select id from taken)`,
            until: new Date(now.getTime() + claim.leaseMs),
          },
          sql`v.due_at`,
        )} from v
        on conflict (endpoint_id, event_id) do nothing
        returning *
      ),
      claimed as (
        select inserted.*, true as opened from inserted where inserted.locked_until is not null
      ),
      ${attemptsOpenedForClaimed(now)},
      ${readsOfClaimed}
      select r.event_id as "fan.event_id", coalesce(made.n, 0)::int as "fan.created", c.*
      from recorded r
      left join (select event_id, count(*) as n from inserted group by event_id) as made
        on made.event_id = r.event_id
      left join (${claimedRows}) as c on c.event_id = r.event_id`;
}

/**
 * Story events in the outbox created between `since` and `before` that this service has no
 * record of having fanned out, oldest first. Only story events: others have their own path.
 */
export async function eventsNotFannedOut(
  db: Queryable,
  since: Date,
  before: Date,
  limit: number,
): Promise<OutboxRow[]> {
  const recorded = db
    .select({ one: sql`1` })
    .from(webhookFannedOutEvents)
    .where(eq(webhookFannedOutEvents.eventId, outboxEvents.id));
  return db
    .select()
    .from(outboxEvents)
    .where(
      and(
        gte(outboxEvents.createdAt, since),
        lt(outboxEvents.createdAt, before),
        inArray(outboxEvents.type, [...WEBHOOK_EVENT_TYPES]),
        notExists(recorded),
      ),
    )
    .orderBy(asc(outboxEvents.createdAt))
    .limit(limit);
}
