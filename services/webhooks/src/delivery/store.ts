import type { Db, Queryable } from "@newsroom/shared/db/index";
import { executePrepared, prefixedColumns, rowMapper } from "@newsroom/shared/db/prepared";
import {
  type StoryStatus,
  stories,
  storyVersions,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpointLeases,
  webhookEndpoints,
} from "@newsroom/shared/db/schema";
import { integerArray, textArray, timestampArray, uuidArray } from "@newsroom/shared/db/sql-arrays";
import { newId } from "@newsroom/shared/ids";
import type { QueueReading } from "@newsroom/shared/metrics";
import type { StoryOut } from "@newsroom/shared/records";
import {
  currentVersionOf,
  storyRecordColumns,
  storyRecordOf,
} from "@newsroom/shared/story-records";
import type { EndpointOrdering } from "@newsroom/shared/webhook-endpoint-commands";
import {
  and,
  count,
  eq,
  gt,
  inArray,
  isNotNull,
  isNull,
  lt,
  or,
  type SQL,
  type SQLWrapper,
  sql,
} from "drizzle-orm";
import { raiseAlertsForFailedAttempt } from "../alerts/record.ts";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** What `last_error` says when a delivery stops because its endpoint is disabled. */
export const ENDPOINT_DISABLED_ERROR = "endpoint disabled";

const d = webhookDeliveries;
const e = webhookEndpoints;

const unclaimed = (now: Date) => or(isNull(d.lockedUntil), lt(d.lockedUntil, now));

export interface ClaimRequest {
  /** The claiming dispatcher process: it holds the leases of the endpoints it claims for. */
  workerId: string;
  /** How long a claim and a lease hold unless renewed; a crashed worker's return after it. */
  leaseMs: number;
  /** Deliveries of one endpoint one claim takes at most: its cap and the next few. */
  perEndpoint: number;
  /** Endpoints not claimed for: the worker holds enough of them, or is giving them back. */
  skipEndpoints?: string[];
  /**
   * Endpoints whose lease the worker hands to the worker that wants it, holding nothing of
   * them (its tenure over). Skipped in the same claim.
   */
  releaseEndpoints?: string[];
}

/**
 * Story order, as a condition on a claim's candidate `queued`: a delivery with a place in its
 * story (`story_order`, set only for endpoints that deliver in story order) waits while a
 * delivery of the same endpoint and story with an earlier place is pending (in flight, retried
 * or waiting for its endpoint's rate). Once that one is delivered or finally failed, it goes.
 * Other stories' deliveries are not held up. One probe of `webhook_deliveries_story_order_idx`.
 */
const notBehindAnEarlierEventOfItsStory = sql`(queued.story_order is null or not exists (
  select 1 from webhook_deliveries as earlier
  where earlier.endpoint_id = queued.endpoint_id and earlier.story_id = queued.story_id
    and earlier.status = 'pending' and earlier.story_order < queued.story_order))`;

/**
 * The common table expression `leased`: the lease of each endpoint of the CTE `picked`
 * (`endpoint_id`), taken for `request.workerId` where it is free, lapsed or already its own, in
 * endpoint order (so two statements never wait on each other's in a cycle). Returns the
 * endpoints whose lease the worker now holds; one another worker holds is left alone (a row
 * another statement is taking is re-checked once it commits). A claim and a fan-out that claims
 * what it inserts take leases alike.
 */
export function leasesOfPicked(
  request: Pick<ClaimRequest, "workerId" | "leaseMs">,
  now: Date,
): SQL {
  return sql`leased as (
      insert into webhook_endpoint_leases as lease (endpoint_id, worker_id, leased_until)
      select distinct endpoint_id, ${request.workerId}::uuid,
        ${new Date(now.getTime() + request.leaseMs).toISOString()}::timestamptz
      from picked order by endpoint_id
      on conflict (endpoint_id) do update
        set worker_id = excluded.worker_id, leased_until = excluded.leased_until,
          wanted_by = case when lease.worker_id = excluded.worker_id then lease.wanted_by end
        where lease.worker_id = excluded.worker_id
          or lease.leased_until <= ${now.toISOString()}::timestamptz
      returning lease.endpoint_id
    )`;
}

/**
 * A delivery (`d`, or the given status column) is still pending, written so that no plan can
 * read it through the queue's partial index (whose predicate is `status = 'pending'`): a
 * statement that names its deliveries by id then finds each by its primary key, whatever the
 * statistics say of the queue. Planned from statistics taken while nothing was pending
 * (autovacuum between two bursts), `d.status = 'pending'` had the recording of a batch read the
 * whole queue through that index, and compare each of its rows with each of the batch's
 * (`statement-plans.happy.test.ts`).
 */
function stillPending(status: SQLWrapper = sql`d.status`): SQL {
  return sql`(${status} = 'pending') is true`;
}

/**
 * The ids a claim takes, locked, in its statement (`claimAndOpenAttempts`): up to `limit`
 * pending deliveries that are due and unclaimed, at most `perEndpoint` of one endpoint, the
 * endpoint whose first due delivery waited longest first (a claim takes whole endpoints' next
 * rows rather than a few of many). Only endpoints whose lease is free, lapsed, or the worker's
 * own are claimed for; the lease of each endpoint taken is written in the same
 * statement (`webhook_endpoint_leases`), so one worker at a time holds an endpoint's deliveries
 * and counts its cap on requests in flight itself: across any number of replicas, an endpoint
 * never has more than its cap in flight. Two replicas taking one lease at once meet on its row:
 * the second finds it taken (re-checked after the first commits) and claims none of that
 * endpoint's rows. A claim that finds an endpoint's deliveries due and its lease another's
 * marks the lease `wanted_by` itself; the holder, after a tenure of its own choosing and once
 * it holds nothing of the endpoint, hands the lease over in a claim (`releaseEndpoints`), so
 * replicas take turns at a busy endpoint when another wants one. The rows are locked with
 * `FOR UPDATE SKIP LOCKED` and their `locked_until` set in the same statement, so two claims
 * never take one row, and a crashed
 * worker's claims and leases lapse. A delivery behind an earlier event of its story (endpoints
 * in story order) is passed over, and the endpoint's next rows are taken. Works across every
 * organization.
 *
 * Its cost follows the endpoints with pending deliveries and the rows it takes, not the backlog:
 * each endpoint's next due rows are read from an index, at most `perEndpoint` of them. Its text
 * is the same for every call of a process (the limits are parameters, `perEndpoint` a constant
 * of the process), so the statement is prepared once per connection.
 */
function dueForClaim(limit: number, request: ClaimRequest, now: Date): SQL {
  const at = sql`${now.toISOString()}::timestamptz`;
  const me = sql`${request.workerId}::uuid`;
  const perEndpoint = sql.raw(String(Math.trunc(request.perEndpoint)));
  // Endpoints with pending deliveries, one index probe each (a skip scan: Postgres has no
  // loose index scan of its own); per endpoint whose lease another worker does not hold, its
  // first unclaimed due rows. A claimed row stays due until its attempt is recorded, and is
  // skipped. Materialized, so the candidates are picked once. The orders spell out the whole key
  // of `webhook_deliveries_endpoint_due_idx`, so the planner reads that index rather than
  // another that needs a filter on every row; the per-endpoint limit is a constant in the text,
  // so its estimates stay small (a limit it cannot read counts as a tenth of the backlog, and
  // the plan's cost then turns on JIT compilation, slower than the query). The leases are taken
  // in endpoint order, so two claims never wait on each other's in a cycle. Each row is locked
  // by its primary key, one at a time (its pending check is `stillPending`): a join or an
  // `id = any(...)` there was planned from a queue's stale statistics as a scan of every due row.
  // The common table expressions of the claim's statement, ending with `due` (the ids): a
  // statement's writes must be at its top level, the leases' among them.
  return sql`
    endpoints as (
      (select endpoint_id from webhook_deliveries where status = 'pending'
        order by endpoint_id, next_attempt_at, id limit 1)
      union all
      select (select next.endpoint_id from webhook_deliveries as next
          where next.status = 'pending' and next.endpoint_id > endpoints.endpoint_id
          order by next.endpoint_id, next.next_attempt_at, next.id limit 1)
      from endpoints where endpoints.endpoint_id is not null
    ),
    queued as materialized (
      select queue.id, queue.endpoint_id, queue.next_attempt_at, queue.first_due from endpoints
      cross join lateral (
        select id, endpoint_id, next_attempt_at,
          first_value(next_attempt_at) over (order by next_attempt_at, id) as first_due
        from webhook_deliveries as queued
        where queued.endpoint_id = endpoints.endpoint_id and queued.status = 'pending'
          and queued.next_attempt_at <= ${at}
          and (queued.locked_until is null or queued.locked_until < ${at})
          and ${notBehindAnEarlierEventOfItsStory}
        order by queued.endpoint_id, queued.next_attempt_at, queued.id
        limit ${perEndpoint}
      ) as queue
      where endpoints.endpoint_id is not null
        and endpoints.endpoint_id <> all(${uuidArray(request.skipEndpoints ?? [])})
        and not exists (
          select 1 from webhook_endpoint_leases as held
          where held.endpoint_id = endpoints.endpoint_id and held.leased_until > ${at}
            and held.worker_id <> ${me})
    ),
    -- Endpoints with due, unclaimed deliveries whose lease another worker holds: this worker
    -- wants a turn, and the holder hands the lease over after its tenure. A lease row another
    -- statement holds is passed over (asked again at the next claim), so that this never waits
    -- on a lock while holding its own leases' locks. One probe of an endpoint's queue per lease
    -- another holds: as an \`exists\`, it was planned as a pass over every due delivery of every
    -- endpoint (2,840 rows, 1.6-2 ms of a claim's 2.6 ms behind a burst's backlog), whatever the
    -- leases.
    wanting as (
      update webhook_endpoint_leases as lease set wanted_by = ${me}
      where lease.endpoint_id in (
        select other.endpoint_id from webhook_endpoint_leases as other
        join endpoints on endpoints.endpoint_id = other.endpoint_id
        cross join lateral (
          select 1 from webhook_deliveries as waiting
          where waiting.endpoint_id = other.endpoint_id and waiting.status = 'pending'
            and waiting.next_attempt_at <= ${at}
            and (waiting.locked_until is null or waiting.locked_until < ${at})
          order by waiting.endpoint_id, waiting.next_attempt_at, waiting.id
          limit 1) as waiting
        where other.worker_id <> ${me} and other.leased_until > ${at}
          and other.wanted_by is null
          and other.endpoint_id <> all(${uuidArray(request.skipEndpoints ?? [])})
        order by other.endpoint_id
        for update of other skip locked)
    ),
    -- Handed to the worker that wants a turn, for a lease's time: it claims the endpoint's
    -- deliveries from its next claim on. This worker skips these endpoints in this claim
    -- (\`skipEndpoints\`), so the statement never both hands over and takes one lease.
    handed as (
      update webhook_endpoint_leases as lease
      set worker_id = lease.wanted_by, wanted_by = null,
        leased_until = ${new Date(now.getTime() + request.leaseMs).toISOString()}::timestamptz
      where lease.endpoint_id in (
        select mine.endpoint_id from webhook_endpoint_leases as mine
        where mine.worker_id = ${me} and mine.wanted_by is not null
          and mine.endpoint_id = any(${uuidArray(request.releaseEndpoints ?? [])})
        order by mine.endpoint_id
        for update of mine skip locked)
    ),
    picked as materialized (
      select id, endpoint_id from queued
      order by first_due, endpoint_id, next_attempt_at, id limit ${limit}
    ),
    ${leasesOfPicked(request, now)},
    due as (
      select locked.id
      from unnest(array(
        select picked.id from picked join leased on leased.endpoint_id = picked.endpoint_id
      )) as taken(id)
      cross join lateral (
        select d.id from webhook_deliveries as d
        where d.id = taken.id and ${stillPending()} and d.next_attempt_at <= ${at}
          and (d.locked_until is null or d.locked_until < ${at})
        for update of d skip locked
      ) as locked
    )`;
}

const deliveryOf = rowMapper(d);
const endpointOf = rowMapper(e, "endpoint.");
const storyOf = rowMapper(stories, "story.");

/** Where an event stands in its story's order: written with it in the outbox. */
export interface EventOrder {
  sequence: number | null;
  previousStatus: StoryStatus | null;
}

/** What a claimed delivery is sent with, read by its claim. */
export interface ClaimedContext {
  /** Its endpoint as the claim found it. */
  endpoint: EndpointRow;
  /** Its story as it reads now (the claim's statement), or null when gone or not a story's. */
  story: StoryOut | null;
  /** Its event's place in its story's order; nulls for an event not from the outbox. */
  order: EventOrder;
}

/** A claim whose attempts are opened in the same statement (`claimAndOpenAttempts`). */
export interface OpenedClaim {
  rows: DeliveryRow[];
  /**
   * The deliveries whose attempt was opened with the claim: those of enabled endpoints without a
   * `rate_limit_per_second`. The others (paced, or their endpoint disabled) are claimed only.
   */
  opened: Set<string>;
  /** By delivery id: its endpoint, story and order, read in the same statement. */
  context: Map<string, ClaimedContext>;
}

/**
 * Claims due deliveries (`dueForClaim`) and opens their attempts in one statement, one round
 * trip: each claimed delivery of an enabled endpoint without a rate has its attempt opened at
 * once (its `attempts` grows, an attempt a dead worker left open is closed, an open attempt is
 * written), so a claimed delivery goes to its request with no write in between, as soon as its
 * endpoint has a free place in this worker. The attempt's `at` is its opening; the recording of
 * its answer sets it to when the request left. A delivery of a paced endpoint is only claimed:
 * it takes a place in its endpoint's window first, and is opened or deferred after
 * (`openAttempts`, `deferDeliveries`); one of a disabled endpoint is stopped.
 *
 * The statement also reads what the deliveries are sent with: each one's endpoint, story (with
 * its current version's title and summary and its topics) and event order, each event's once
 * for all its endpoints, so a claimed batch needs no other read before its requests (the status page's and alerts' events read their own
 * data after).
 */
export async function claimAndOpenAttempts(
  db: Db,
  limit: number,
  request: ClaimRequest,
  now: Date = new Date(),
): Promise<OpenedClaim> {
  if (limit <= 0 && (request.releaseEndpoints ?? []).length === 0) {
    return { rows: [], opened: new Set(), context: new Map() };
  }
  const rows = await executePrepared<Record<string, unknown>>(
    db,
    "webhooks_claim_and_open",
    claimStatement(limit, request, now),
  );
  return openedClaimOf(rows);
}

/** `claimAndOpenAttempts`' statement. */
export function claimStatement(limit: number, request: ClaimRequest, now: Date): SQL {
  return sql`
    with recursive ${dueForClaim(limit, request, now)},
    claimed as (
      update webhook_deliveries as d
      set locked_until = ${new Date(now.getTime() + request.leaseMs).toISOString()}::timestamptz,
        attempts = d.attempts
          + (case when e.status = 'enabled' and e.rate_limit_per_second is null then 1 else 0 end)
      from webhook_endpoints as e
      where d.id = any(array(select id from due))
        and e.organization_id = d.organization_id and e.id = d.endpoint_id
      returning d.*, (e.status = 'enabled' and e.rate_limit_per_second is null) as opened
    ),
    ${attemptsOpenedForClaimed(now)},
    closed as (
      update webhook_attempts as a set in_flight = false, reason = ${UNRECORDED_ANSWER}
      from numbered
      where a.organization_id = numbered.organization_id and a.delivery_id = numbered.id
        and a.in_flight
    ),
    ${readsOfClaimed}
    ${claimedRows}`;
}

/**
 * The common table expressions `numbered` and `opened_attempts`: an open attempt for each
 * delivery of the CTE `claimed` (`d.*` as it is now, `opened`) whose attempt opens with its claim,
 * numbered by its `attempts`, at `now` (the recording of its answer sets when the request left).
 * Their ids are drawn by the statement (`gen_random_uuid()`, a v4 as `newId` draws), so a claim
 * sends no id for each row it might take.
 */
export function attemptsOpenedForClaimed(now: Date): SQL {
  return sql`numbered as (
      select claimed.organization_id, claimed.id, claimed.attempts
      from claimed where claimed.opened
    ),
    opened_attempts as (
      insert into webhook_attempts
        (id, organization_id, delivery_id, attempt, at, duration_ms, in_flight)
      select gen_random_uuid(), numbered.organization_id, numbered.id,
        numbered.attempts, ${now.toISOString()}::timestamptz, 0, true
      from numbered
    )`;
}

/**
 * The common table expressions `endpoint_reads` and `event_reads`: what the deliveries of the CTE
 * `claimed` are sent with, each endpoint's and each event's once, however many deliveries share
 * it: the endpoint, and the event's story (with its current version's title and summary and its
 * topics) and place in its story's order. `claimedRows` joins them to the rows of `claimed`.
 */
export const readsOfClaimed = sql`
    claimed_endpoints as materialized (select distinct endpoint_id, organization_id from claimed),
    endpoint_reads as materialized (
      select ${prefixedColumns(e, "e", "endpoint.")}
      from claimed_endpoints
      join lateral (
        select * from webhook_endpoints
        where webhook_endpoints.id = claimed_endpoints.endpoint_id
          and webhook_endpoints.organization_id = claimed_endpoints.organization_id
        limit 1
      ) as e on true
    ),
    claimed_events as materialized (select distinct event_id, story_id from claimed),
    event_reads as materialized (
      select claimed_events.event_id as "read.event_id",
        ${prefixedColumns(stories, '"stories"', "story.")},
        ${storyVersions.title} as "version.title", ${storyVersions.summary} as "version.summary",
        ${storyRecordColumns.topics} as "story_topics",
        o.organization_id as "event.organization_id", o.sequence as "event.sequence",
        o.previous_status as "event.previous_status"
      from claimed_events
      -- One probe by key each ("limit 1" keeps it from being planned as a join, which read
      -- every story and the whole outbox at each claim once the tables had statistics).
      left join lateral (
        select * from stories where stories.id = claimed_events.story_id limit 1
      ) as stories on true
      left join lateral (
        select * from story_versions where ${currentVersionOf} limit 1
      ) as story_versions on true
      left join lateral (
        select * from outbox_events where outbox_events.id = claimed_events.event_id limit 1
      ) as o on true
    )`;

/**
 * The rows of the CTE `claimed`, its endpoint's columns on the first row of each endpoint and its
 * event's reads on the first row of each event, nulls on the others (`openedClaimOf` shares them
 * out). A claim's deliveries are mostly a few events to each of a few endpoints: repeated on
 * every row, the endpoint's and the story's columns were most of what the driver parsed and
 * mapped for a claim.
 */
export const claimedRows = sql`
    select claimed.*, endpoint_reads.*, event_reads.*
    from (
      select claimed.*,
        row_number() over (partition by claimed.endpoint_id order by claimed.id) = 1
          as endpoint_first,
        row_number() over (partition by claimed.event_id order by claimed.id) = 1 as event_first
      from claimed
    ) as claimed
    left join endpoint_reads
      on claimed.endpoint_first and endpoint_reads."endpoint.id" = claimed.endpoint_id
    left join event_reads
      on claimed.event_first and event_reads."read.event_id" = claimed.event_id`;

/** Claimed deliveries read back from `claimedRows`: each endpoint and each event's reads once. */
export function openedClaimOf(rows: Record<string, unknown>[]): OpenedClaim {
  const endpoints = new Map<string, EndpointRow>();
  const reads = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    // A join that found nothing leaves its columns null: no reads, and the check below throws.
    if (row.endpoint_first && row["endpoint.id"] != null) {
      endpoints.set(row.endpoint_id as string, endpointOf(row));
    }
    if (row.event_first && row["read.event_id"] != null) reads.set(row.event_id as string, row);
  }
  const sent = new Map<string, Omit<ClaimedContext, "endpoint">>();
  const context = new Map<string, ClaimedContext>();
  for (const row of rows) {
    const endpoint = endpoints.get(row.endpoint_id as string);
    const read = reads.get(row.event_id as string);
    if (!endpoint || !read) throw new Error(`claimed delivery ${row.id} came without its reads`);
    const key = `${row.event_id} ${row.organization_id}`;
    let event = sent.get(key);
    if (!event) {
      event = eventContextOf(read, row.organization_id as string);
      sent.set(key, event);
    }
    context.set(row.id as string, { endpoint, ...event });
  }
  return {
    rows: rows.map(deliveryOf),
    opened: new Set(rows.filter((row) => row.opened).map((row) => row.id as string)),
    context,
  };
}

/**
 * An event's story and order from its reads, for a delivery of `organizationId`. Joined by id
 * alone, so that each is one primary-key probe whatever the planner thinks of a table's size; a
 * story or event of another organization is then left out here.
 */
function eventContextOf(
  read: Record<string, unknown>,
  organizationId: string,
): Omit<ClaimedContext, "endpoint"> {
  const ownStory = read["story.organization_id"] === organizationId;
  const ownEvent = read["event.organization_id"] === organizationId;
  return {
    story: !ownStory
      ? null
      : storyRecordOf({
          story: storyOf(read),
          title: read["version.title"] as string | null,
          summary: read["version.summary"] as string | null,
          topics: read.story_topics as string[] | null,
        }),
    order: {
      sequence: ownEvent ? ((read["event.sequence"] as number | null) ?? null) : null,
      previousStatus: ownEvent
        ? ((read["event.previous_status"] as StoryStatus | null) ?? null)
        : null,
    },
  };
}

/** Gives claims back (a worker stopping before it started them). */
export async function releaseClaims(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(d)
    .set({ lockedUntil: null })
    .where(sql`${d.id} = any(${uuidArray(ids)})`)
    .prepare("webhooks_release_claims")
    .execute();
}

/**
 * Gives back claimed deliveries whose attempts were opened but whose requests never left (a
 * worker stopping with deliveries queued for their endpoint's places, or whose start failed):
 * each open attempt is removed and the delivery's count goes back with its claim, as if it had
 * not been claimed. Each is matched on its attempt's number: a delivery whose claim lapsed and
 * that another worker claimed and opened since is left alone.
 */
export async function giveBackUnsent(
  db: Db,
  deliveries: { delivery: Pick<DeliveryRow, "id" | "organizationId">; attempt: number }[],
): Promise<void> {
  if (deliveries.length === 0) return;
  await executePrepared(
    db,
    "webhooks_give_back_unsent",
    sql`
    with v as (
      select * from unnest(
        ${uuidArray(deliveries.map(({ delivery }) => delivery.organizationId))},
        ${uuidArray(deliveries.map(({ delivery }) => delivery.id))},
        ${integerArray(deliveries.map(({ attempt }) => attempt))}
      ) as v(organization_id, id, attempt)
    ),
    unsent as (
      delete from webhook_attempts as a
      using v, webhook_deliveries as d
      where a.organization_id = v.organization_id and a.delivery_id = v.id and a.in_flight
        and a.attempt = v.attempt
        and d.organization_id = v.organization_id and d.id = v.id and ${stillPending()}
        and d.attempts = v.attempt
      returning a.organization_id, a.delivery_id
    )
    update webhook_deliveries as d
    set attempts = d.attempts - 1, locked_until = null
    from unsent
    where d.organization_id = unsent.organization_id and d.id = unsent.delivery_id`,
  );
}

/**
 * Claimed deliveries over their endpoint's rate: each is due again when a place frees and its
 * claim is let go. No attempt is counted and nothing is recorded as failed. One statement.
 */
export async function deferDeliveries(
  db: Db,
  waiting: { delivery: Pick<DeliveryRow, "id" | "organizationId">; waitMs: number }[],
  now: Date = new Date(),
): Promise<void> {
  if (waiting.length === 0) return;
  await executePrepared(
    db,
    "webhooks_defer_deliveries",
    sql`
    update webhook_deliveries as d set next_attempt_at = v.due_at, locked_until = null
    from unnest(
      ${uuidArray(waiting.map(({ delivery }) => delivery.organizationId))},
      ${uuidArray(waiting.map(({ delivery }) => delivery.id))},
      ${timestampArray(waiting.map(({ waitMs }) => new Date(now.getTime() + waitMs)))}
    ) as v(organization_id, id, due_at)
    where d.organization_id = v.organization_id and d.id = v.id and ${stillPending()}`,
  );
}

/**
 * A live worker's claims are renewed while their attempts run, so the lease can be short and a
 * dead worker's claims return within it. A row another statement holds right now (its attempt
 * being opened or recorded) is skipped, not waited for: a renewal touching many rows in no
 * particular order would otherwise deadlock with such a statement, and PostgreSQL might end the
 * recording rather than the renewal (the answer then lost, the delivery sent again after the
 * lease). A skipped row is renewed at the next beat, well within the lease.
 */
export async function renewClaims(
  db: Db,
  ids: string[],
  leaseMs: number,
  now: Date = new Date(),
): Promise<void> {
  if (ids.length === 0) return;
  const held = db
    .select({ id: d.id })
    .from(d)
    .where(
      and(
        sql`${d.id} = any(${uuidArray(ids)})`,
        stillPending(d.status),
        sql`${d.lockedUntil} is not null`,
      ),
    )
    .for("update", { skipLocked: true });
  await db
    .update(d)
    .set({ lockedUntil: new Date(now.getTime() + leaseMs) })
    .where(sql`${d.id} in (${held})`)
    .prepare("webhooks_renew_claims")
    .execute();
}

/** What a renewal learns of the endpoints a worker holds deliveries of. */
export interface LeaseNews {
  /** Disabled or deleted since: their queued deliveries are not to be sent. */
  notEnabled: string[];
  /** Another worker wants a turn: handed over once the worker's tenure is over. */
  wanted: string[];
  /**
   * Leases no longer the worker's (it failed to renew them within the lease, and another took
   * one): their queued deliveries are not to be sent by it.
   */
  lost: string[];
}

/**
 * Renews the leases a live worker holds on the endpoints whose deliveries it holds, with its
 * claims, and gives back its leases of other endpoints not written since `giveBackBefore`
 * (a claim under way writes a later time, so a lease it is taking is kept). The rows are locked
 * in endpoint order, as claims lock them, and a lease another statement holds is given back at
 * a later renewal rather than waited for.
 */
export async function renewLeases(
  db: Db,
  workerId: string,
  heldEndpoints: string[],
  options: { leaseMs: number; giveBackBefore: Date },
  now: Date = new Date(),
): Promise<LeaseNews> {
  const rows = await executePrepared<{
    id: string;
    enabled: boolean;
    renewed: boolean;
    wanted: boolean;
  }>(
    db,
    "webhooks_renew_leases",
    sql`
    with renewed as (
      update webhook_endpoint_leases as lease
      set leased_until = ${new Date(now.getTime() + options.leaseMs).toISOString()}::timestamptz
      where lease.endpoint_id in (
        select mine.endpoint_id from webhook_endpoint_leases as mine
        where mine.worker_id = ${workerId}::uuid
          and mine.endpoint_id = any(${uuidArray(heldEndpoints)})
        order by mine.endpoint_id
        for update of mine)
      returning lease.endpoint_id, lease.wanted_by is not null as wanted
    ),
    given_back as (
      delete from webhook_endpoint_leases as lease
      where lease.endpoint_id in (
        select idle.endpoint_id from webhook_endpoint_leases as idle
        where idle.worker_id = ${workerId}::uuid
          and idle.endpoint_id <> all(${uuidArray(heldEndpoints)})
          and idle.leased_until < ${options.giveBackBefore.toISOString()}::timestamptz
        order by idle.endpoint_id
        for update of idle skip locked)
    )
    select held.id, coalesce(e.status = 'enabled', false) as enabled,
      renewed.endpoint_id is not null as renewed, coalesce(renewed.wanted, false) as wanted
    from unnest(${uuidArray(heldEndpoints)}) as held(id)
    left join webhook_endpoints as e on e.id = held.id
    left join renewed on renewed.endpoint_id = held.id`,
  );
  return {
    notEnabled: rows.filter((row) => !row.enabled).map((row) => row.id),
    wanted: rows.filter((row) => row.wanted).map((row) => row.id),
    lost: rows.filter((row) => row.enabled && !row.renewed).map((row) => row.id),
  };
}

/** Gives a stopping worker's leases back: its endpoints are another replica's to claim at once. */
export async function releaseLeases(db: Db, workerId: string): Promise<void> {
  await db.delete(webhookEndpointLeases).where(eq(webhookEndpointLeases.workerId, workerId));
}

/** Why an attempt left open by a worker that died is closed: nobody saw its answer. */
export const UNRECORDED_ANSWER = "no answer recorded (the sender stopped)";

/**
 * Logs the attempts about to be made, before their requests leave: each delivery's `attempts`
 * grows and an open attempt is written, so a call whose answer is lost (the process killed) is
 * still counted. An attempt an earlier, dead worker left open is closed on the way. Only
 * deliveries still pending whose endpoint is enabled are opened; returns their ids (the ones to
 * send). One statement for the whole batch. The attempt's number is the delivery's count after
 * it (`attempts + 1` of the claimed row, which this worker holds).
 */
export async function openAttempts(
  db: Queryable,
  deliveries: Pick<DeliveryRow, "id" | "organizationId">[],
  now: Date = new Date(),
): Promise<Set<string>> {
  if (deliveries.length === 0) return new Set();
  const rows = await executePrepared<{ delivery_id: string }>(
    db,
    "webhooks_open_attempts",
    sql`
    with v as (
      select * from unnest(
        ${uuidArray(deliveries.map((delivery) => delivery.organizationId))},
        ${uuidArray(deliveries.map((delivery) => delivery.id))},
        ${uuidArray(deliveries.map(() => newId()))}
      ) as v(organization_id, id, attempt_id)
    ),
    opened as (
      update webhook_deliveries as d set attempts = d.attempts + 1
      from v, webhook_endpoints as e
      where d.organization_id = v.organization_id and d.id = v.id and ${stillPending()}
        and e.organization_id = d.organization_id and e.id = d.endpoint_id
        and e.status = 'enabled'
      returning d.organization_id, d.id, d.attempts
    ),
    closed as (
      update webhook_attempts as a set in_flight = false, reason = ${UNRECORDED_ANSWER}
      from opened
      where a.organization_id = opened.organization_id and a.delivery_id = opened.id
        and a.in_flight
    )
    insert into webhook_attempts
      (id, organization_id, delivery_id, attempt, at, duration_ms, in_flight)
    select v.attempt_id, opened.organization_id, opened.id, opened.attempts,
      ${now.toISOString()}::timestamptz, 0, true
    from opened join v on v.id = opened.id
    returning delivery_id`,
  );
  return new Set(rows.map((row) => row.delivery_id));
}

export async function findEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<EndpointRow | null> {
  const [row] = await db
    .select()
    .from(e)
    .where(and(eq(e.organizationId, organizationId), eq(e.id, endpointId)));
  return row ?? null;
}

export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The first 1 KiB of the answer, for the attempt details in the workspace. */
  responseBody: string | null;
  /** When its request left (see `attemptTime`); the attempt keeps its opening time when not given. */
  startedAt?: Date;
}

/**
 * An attempt's time as its answer is recorded: its opening, or when its request left when that
 * was over a second later (a delivery queued in its worker behind its endpoint's slow requests).
 * Left as it was otherwise, so that the recording changes no indexed column of the attempt and
 * PostgreSQL can update it in place.
 */
function attemptTime(openedAt: SQL, startedAt: SQL): SQL {
  return sql`case when ${startedAt} > ${openedAt} + interval '1 second' then ${startedAt}
    else ${openedAt} end`;
}

export interface DeliveredAttempt {
  delivery: Pick<DeliveryRow, "id" | "organizationId" | "endpointId">;
  /** The 2xx the receiver answered. */
  statusCode: number;
  /** When it answered: less `durationMs`, when its request left (see `attemptTime`). */
  at: Date;
  durationMs: number;
  /** The first 1 KiB of the answer, for the attempt details in the workspace. */
  responseBody: string | null;
}

/**
 * 2xx answers: each delivery still pending is delivered, its open attempt completed, and its
 * endpoint's runs of failed deliveries and attempts end; the endpoint keeps when its latest 2xx
 * was answered (`last_success_at`), so a failed attempt sent before it and recorded after it
 * does not start a run again. One statement for any number of attempts, so a busy worker records
 * a whole batch at once; each row is matched on its organization and id.
 */
export async function recordDeliveredBatch(db: Db, attempts: DeliveredAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await executePrepared(db, "webhooks_record_delivered", deliveredBatchStatement(attempts));
}

/**
 * `recordDeliveredBatch`'s statement: the deliveries still pending (each found by its primary
 * key, see `stillPending`), their attempts, then their endpoints.
 */
export function deliveredBatchStatement(attempts: DeliveredAttempt[]): SQL {
  return sql`
    with v as (
      select * from unnest(
        ${uuidArray(attempts.map((attempt) => attempt.delivery.organizationId))},
        ${uuidArray(attempts.map((attempt) => attempt.delivery.id))},
        ${integerArray(attempts.map((attempt) => attempt.statusCode))},
        ${timestampArray(attempts.map((attempt) => attempt.at))},
        ${integerArray(attempts.map((attempt) => attempt.durationMs))},
        ${textArray(attempts.map((attempt) => attempt.responseBody))}
      ) as v(organization_id, id, status_code, delivered_at, duration_ms, response_body)
    ),
    delivered as (
      update webhook_deliveries as d
      set status = 'delivered', last_status_code = v.status_code,
          last_duration_ms = v.duration_ms, last_error = null, next_attempt_at = null,
          delivered_at = v.delivered_at, locked_until = null
      from v
      where d.organization_id = v.organization_id and d.id = v.id and ${stillPending()}
      returning d.organization_id, d.endpoint_id, d.id, d.attempts
    ),
    logged as (
      update webhook_attempts as a
      set in_flight = false, status_code = v.status_code, duration_ms = v.duration_ms,
        response_body = v.response_body, reason = null,
        at = ${attemptTime(sql`a.at`, sql`v.delivered_at - v.duration_ms * interval '1 millisecond'`)}
      from delivered join v on v.id = delivered.id
      where a.organization_id = delivered.organization_id and a.delivery_id = delivered.id
        and a.attempt = delivered.attempts and a.in_flight
    ),
    succeeded as (
      select delivered.organization_id, delivered.endpoint_id, max(v.delivered_at) as at
      from delivered join v on v.id = delivered.id
      group by delivered.organization_id, delivered.endpoint_id
    ),
    -- Locked in one order, so two replicas' batches of the same endpoints never deadlock.
    -- Only endpoints with a run to end, or whose last success is over a second old: a healthy
    -- busy endpoint is written about once a second, not once a batch. "No key update": the
    -- lock the row's update takes anyway, which a fan-out inserting the endpoint's deliveries
    -- (its foreign key's "key share") does not hold up; "for update" waited for that
    -- transaction to commit, and a recording that waited past the lock timeout lost its answers.
    locked as (
      select e.id from webhook_endpoints as e
      join succeeded as s on e.organization_id = s.organization_id and e.id = s.endpoint_id
      where e.consecutive_failures > 0 or e.failing_since is not null
        or e.last_success_at is null or e.last_success_at < s.at - interval '1 second'
      order by e.id
      for no key update of e
    )
    update webhook_endpoints as e set consecutive_failures = 0, failed_attempts_in_a_row = 0,
      failing_since = null, failure_alert_percent = 0,
      last_success_at = greatest(e.last_success_at, s.at)
    from succeeded as s
    where e.organization_id = s.organization_id and e.id = s.endpoint_id
      and e.id in (select id from locked)`;
}

/**
 * A failed attempt. With retries left the delivery stays pending until `nextAttemptAt`;
 * otherwise it is failed, and the endpoint's run of failed deliveries grows: at
 * `disableAfter` the endpoint is disabled (reason `failing`) and its pending deliveries stop.
 * A receiver that answered `410 Gone` (`gone`) asks to hear nothing more (Standard Webhooks):
 * the delivery fails and the endpoint is disabled at once, whatever the count.
 * A failed attempt sent before the endpoint's latest 2xx was answered (a 410 aside) changes only
 * its delivery: the endpoint's runs, its disabling and its alerts belong to what came after that
 * 2xx.
 * The alerts the attempt raises (failing, exhausted, disabled) are written in the same
 * transaction. Returns the delivery's new status, whether this disabled the endpoint and how
 * many alerts it raised.
 * Written once: it applies only while its attempt is open, so a recording tried again after a
 * write that did commit changes nothing.
 */
export async function recordFailedAttempt(
  db: Db,
  delivery: DeliveryRow,
  attempt: AttemptRecord,
  options: {
    maxAttempts: number;
    nextAttemptAt: (attempts: number) => Date;
    disableAfter: number;
    gone?: boolean;
  },
  now: Date = new Date(),
): Promise<{ status: "pending" | "failed"; endpointDisabled: boolean; alerts: number }> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ attempts: d.attempts, status: d.status })
      .from(d)
      .where(and(eq(d.organizationId, delivery.organizationId), eq(d.id, delivery.id)))
      .for("update");
    if (current?.status !== "pending") {
      return { status: "failed" as const, endpointDisabled: false, alerts: 0 };
    }
    // Counted when the attempt was opened, before its request left.
    const attempts = current.attempts;
    const final = options.gone === true || attempts >= options.maxAttempts;
    const retryAt = final ? null : options.nextAttemptAt(attempts);
    const [opened] = await tx
      .update(webhookAttempts)
      .set({
        inFlight: false,
        at:
          attempt.startedAt &&
          attemptTime(
            sql`${webhookAttempts.at}`,
            sql`${attempt.startedAt.toISOString()}::timestamptz`,
          ),
        statusCode: attempt.statusCode,
        durationMs: attempt.durationMs,
        responseBody: attempt.responseBody,
        reason: attempt.error,
      })
      .where(
        and(
          eq(webhookAttempts.organizationId, delivery.organizationId),
          eq(webhookAttempts.deliveryId, delivery.id),
          eq(webhookAttempts.attempt, attempts),
          // A resend starts a new series: an earlier series' attempt of the same number is done.
          eq(webhookAttempts.inFlight, true),
        ),
      )
      .returning({ sentAt: webhookAttempts.at });
    // Its attempt is no longer open: this answer was recorded already (a write that committed,
    // though its caller saw it fail, tried again), or the claim lapsed and another worker's
    // attempt is under way. Either way nothing is left for this answer to change.
    if (!opened) return { status: "pending" as const, endpointDisabled: false, alerts: 0 };
    await tx
      .update(d)
      .set({
        status: final ? "failed" : "pending",
        attempts,
        lastStatusCode: attempt.statusCode,
        lastDurationMs: attempt.durationMs,
        lastError: attempt.error,
        nextAttemptAt: retryAt,
        lockedUntil: null,
      })
      .where(eq(d.id, delivery.id));
    // The endpoint's row, locked: every replica's recordings of one endpoint take turns from here.
    // "No key update", as a recording of 2xx answers: a fan-out inserting the endpoint's
    // deliveries does not hold it up.
    const [endpointNow] = await tx
      .select({ lastSuccessAt: e.lastSuccessAt })
      .from(e)
      .where(and(eq(e.organizationId, delivery.organizationId), eq(e.id, delivery.endpointId)))
      .for("no key update");
    // Sent before the endpoint's latest 2xx was answered: the run that 2xx ended was this
    // attempt's, though its recording comes later (another worker, a slower transaction). A
    // 410 still disables: the receiver asked to hear nothing more.
    const beforeLastSuccess =
      options.gone !== true &&
      endpointNow?.lastSuccessAt != null &&
      opened.sentAt.getTime() <= endpointNow.lastSuccessAt.getTime();
    if (!final) await holdLaterEventsOfItsStory(tx, delivery, retryAt!);
    if (beforeLastSuccess) {
      return {
        status: final ? ("failed" as const) : ("pending" as const),
        endpointDisabled: false,
        alerts: 0,
      };
    }
    let disabled: { announcementId: string; failedInARow: number; gone: boolean } | null = null;
    if (final) {
      const [endpoint] = await tx
        .update(e)
        .set({ consecutiveFailures: sql`${e.consecutiveFailures} + 1` })
        .where(and(eq(e.organizationId, delivery.organizationId), eq(e.id, delivery.endpointId)))
        .returning({ failures: e.consecutiveFailures, status: e.status });
      if (
        endpoint?.status === "enabled" &&
        (endpoint.failures >= options.disableAfter || options.gone === true)
      ) {
        const announcementId = await disableFailingEndpoint(
          tx,
          delivery.organizationId,
          delivery.endpointId,
          now,
        );
        const gone = options.gone === true;
        disabled = {
          announcementId,
          failedInARow: gone ? endpoint.failures : options.disableAfter,
          gone,
        };
      }
    }
    const alerts = await raiseAlertsForFailedAttempt(tx, {
      delivery,
      attempts,
      statusCode: attempt.statusCode,
      error: attempt.error,
      final,
      disabled,
      maxAttempts: options.maxAttempts,
      disableAfter: options.disableAfter,
      now,
    });
    return {
      status: final ? ("failed" as const) : ("pending" as const),
      endpointDisabled: disabled !== null,
      alerts,
    };
  });
}

/**
 * A delivery in story order waits for its retry: the later pending events of its story to the
 * same endpoint are not due before it, so claims do not read them over and over meanwhile (they
 * would only be passed over). One probe of `webhook_deliveries_story_order_idx`; nothing for an
 * unordered delivery.
 */
async function holdLaterEventsOfItsStory(
  tx: Queryable,
  delivery: Pick<DeliveryRow, "organizationId" | "endpointId" | "storyId" | "storyOrder">,
  until: Date,
): Promise<void> {
  if (delivery.storyOrder === null || delivery.storyId === null) return;
  await tx
    .update(d)
    .set({ nextAttemptAt: until })
    .where(
      and(
        eq(d.organizationId, delivery.organizationId),
        eq(d.endpointId, delivery.endpointId),
        eq(d.storyId, delivery.storyId),
        eq(d.status, "pending"),
        gt(d.storyOrder, delivery.storyOrder),
        lt(d.nextAttemptAt, until),
      ),
    );
}

/** Disables the endpoint for failing; returns the id of the announcement it now owes. */
async function disableFailingEndpoint(
  tx: Queryable,
  organizationId: string,
  endpointId: string,
  now: Date,
): Promise<string> {
  const announcementId = newId();
  await tx
    .update(e)
    // Owed in this transaction: the `webhook_endpoint.disabled` event of this disabling, published
    // after commit (and by the periodic pass until it is), under this id.
    .set({
      status: "disabled",
      disabledReason: "failing",
      disabledAnnouncementId: announcementId,
      updatedAt: now,
    })
    .where(and(eq(e.organizationId, organizationId), eq(e.id, endpointId)));
  await stopPendingDeliveries(tx, organizationId, [endpointId], now);
  return announcementId;
}

/**
 * Pending deliveries of these endpoints become failed (`last_error` "endpoint disabled"), except
 * those a worker holds right now: that attempt is recorded when it ends, and the next claim
 * stops the delivery.
 */
export async function stopPendingDeliveries(
  db: Queryable,
  organizationId: string,
  endpointIds: string[],
  now: Date = new Date(),
): Promise<number> {
  if (endpointIds.length === 0) return 0;
  const rows = await db
    .update(d)
    .set({
      status: "failed",
      lastError: ENDPOINT_DISABLED_ERROR,
      nextAttemptAt: null,
      lockedUntil: null,
    })
    .where(
      and(
        eq(d.organizationId, organizationId),
        inArray(d.endpointId, endpointIds),
        eq(d.status, "pending"),
        unclaimed(now),
      ),
    )
    .returning({ id: d.id });
  return rows.length;
}

/**
 * An endpoint's ordering changed: its pending deliveries take their events' places in their
 * stories (`story`, read from the outbox's sequences), or every delivery of it drops its place
 * (`none`: a later resend waits for nothing either), so the change holds for what is waiting
 * too, not only for deliveries fanned out after it.
 */
export async function reorderPendingDeliveries(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  ordering: EndpointOrdering,
): Promise<void> {
  if (ordering === "none") {
    await db
      .update(d)
      .set({ storyOrder: null })
      .where(
        and(
          eq(d.organizationId, organizationId),
          eq(d.endpointId, endpointId),
          isNotNull(d.storyOrder),
        ),
      );
    return;
  }
  await db.execute(sql`
    update webhook_deliveries as d set story_order = o.sequence
    from outbox_events as o
    where o.id = d.event_id and o.organization_id = d.organization_id
      and d.organization_id = ${organizationId} and d.endpoint_id = ${endpointId}
      and d.status = 'pending' and d.story_id is not null`);
}

/** Stops the pending deliveries of every disabled endpoint, in every organization. */
export async function stopDeliveriesOfDisabledEndpoints(
  db: Db,
  now: Date = new Date(),
): Promise<number> {
  const disabled = db.select({ id: e.id }).from(e).where(eq(e.status, "disabled"));
  const rows = await db
    .update(d)
    .set({
      status: "failed",
      lastError: ENDPOINT_DISABLED_ERROR,
      nextAttemptAt: null,
      lockedUntil: null,
    })
    .where(and(eq(d.status, "pending"), inArray(d.endpointId, disabled), unclaimed(now)))
    .returning({ id: d.id });
  return rows.length;
}

/** A claimed delivery whose endpoint turned out to be disabled: it stops, unsent. */
export async function stopClaimedDelivery(db: Db, delivery: DeliveryRow): Promise<void> {
  await db
    .update(d)
    .set({
      status: "failed",
      lastError: ENDPOINT_DISABLED_ERROR,
      nextAttemptAt: null,
      lockedUntil: null,
    })
    .where(
      and(
        eq(d.organizationId, delivery.organizationId),
        eq(d.id, delivery.id),
        eq(d.status, "pending"),
      ),
    );
}

/** Deliveries waiting for an attempt, for the `webhook_deliveries_pending` gauge. */
export async function countPendingDeliveries(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
  return row?.n ?? 0;
}

/**
 * The queue lag at `now`: pending deliveries that are due and that no worker holds, and how long
 * the oldest of them has been due. Read at each scrape: one pass over the pending rows' partial
 * index (`webhook_deliveries_endpoint_due_idx`), not the whole table.
 */
export async function readDeliveryQueue(db: Db, now: Date = new Date()): Promise<QueueReading> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const [row] = await db
    .select({
      due: count(),
      oldest: sql<string | null>`min(${d.nextAttemptAt})`,
    })
    .from(d)
    .where(
      and(
        eq(d.status, "pending"),
        sql`${d.nextAttemptAt} <= ${at}`,
        or(isNull(d.lockedUntil), sql`${d.lockedUntil} < ${at}`),
      ),
    );
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
  return {
    due: row?.due ?? 0,
    oldestDueSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
  };
}

/** How long attempt details are kept. */
export const ATTEMPT_DETAILS_DAYS = 30;

/** Deletes attempt details older than 30 days, in every organization. */
export async function deleteOldAttempts(db: Db, now: Date = new Date()): Promise<void> {
  const before = new Date(now.getTime() - ATTEMPT_DETAILS_DAYS * 24 * 3_600_000);
  await db.delete(webhookAttempts).where(lt(webhookAttempts.at, before));
}
