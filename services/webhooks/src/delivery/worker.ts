import { Batcher } from "@newsroom/shared/batch";
import type { Db } from "@newsroom/shared/db/index";
import { newId } from "@newsroom/shared/ids";
import { log } from "@newsroom/shared/log";
import {
  attemptEnded,
  attemptStarted,
  webhookAttempts,
  webhookDeliveries,
  webhookDeliveryLatency,
  webhookEndpointDisablements,
} from "@newsroom/shared/metrics";
import { MemoryRateLimitStore, type RateLimitStore } from "@newsroom/shared/rate-limit";
import {
  contextFromTraceParent,
  currentTraceIds,
  inSpan,
  SpanKind,
} from "@newsroom/shared/tracing/index";
import type { EndpointAuthIn } from "@newsroom/shared/webhook-endpoint-commands";
import { openEndpointAuth } from "../endpoints/auth.ts";
import type { FanOutClaim, FanOutClaimer } from "../fan-out/store.ts";
import { signingSecrets } from "../signing/endpoint-secrets.ts";
import { OAuthTokens, sendAuthenticated } from "./endpoint-auth.ts";
import { paceDeliveries } from "./pacing.ts";
import { claimedBodies } from "./payload.ts";
import { laterOf } from "./retry-after.ts";
import { maxAttempts, nextAttemptAt } from "./retry-schedule.ts";
import { ATTEMPT_TIMEOUT_MS } from "./send.ts";
import {
  type ClaimedContext,
  claimAndOpenAttempts,
  type DeliveredAttempt,
  type DeliveryRow,
  deferDeliveries,
  type EndpointRow,
  giveBackUnsent,
  type OpenedClaim,
  openAttempts,
  recordDeliveredBatch,
  recordFailedAttempt,
  releaseClaims,
  releaseLeases,
  renewClaims,
  renewLeases,
  stopClaimedDelivery,
} from "./store.ts";
import type { HostResolver } from "./target-guard.ts";

/** Failed deliveries in a row that disable an endpoint. */
export const DISABLE_AFTER_FAILED_DELIVERIES = 3;

/** A receiver's "stop sending": the endpoint is disabled at its first such answer. */
const GONE = 410;

/**
 * How long a claim holds unless renewed. A live worker renews its claims every quarter of it, so
 * a worker that dies hands its deliveries on within this time.
 */
export const CLAIM_LEASE_MS = 8_000;

/**
 * Claim statements one process runs at once. Claims fill each endpoint's queue in this process
 * ahead of its free places, so a freed place goes to the endpoint's next delivery without a
 * round trip, and one claim at a time keeps the queues filled. Two at once picked the same
 * candidates (the same endpoints' first rows): the second waited for the first's leases, then
 * found most of its rows taken (`auto_explain`: 6 of a claim's 9 ms spent locking rows it could
 * not have). One at a time against two, two rounds each: 1,850 and 1,890 deliveries a second
 * against 1,388 and 1,917, and 232 against 313 µs of PostgreSQL's CPU per delivery. It also
 * keeps a handover safe: no other claim of the process is taking the endpoint's deliveries as
 * its lease goes.
 */
const CLAIMS_AT_ONCE = 1;

/**
 * Deliveries of one endpoint a claim takes at most, as a multiple of its cap: its places and
 * the next ones, so the endpoint's queue in this process outlasts a claim's round trip.
 */
const CLAIM_AHEAD = 3;
/** An endpoint with this many caps' worth of deliveries queued and under way here is not claimed for. */
const QUEUE_FULL = 2;
/**
 * How long this process claims an endpoint's deliveries under one lease (by default) while
 * another replica wants a turn (it found the endpoint's deliveries due and the lease taken).
 * After it, the process lets the endpoint's queue run out and hands the lease to that replica,
 * which claims the endpoint's deliveries from its next claim on: replicas take turns at a busy
 * endpoint, a handover costing the endpoint the time its last requests take and the time until
 * the other's next claim (its poll at most). Alone, a process keeps its leases.
 */
export const LEASE_TENURE_MS = 5_000;
/** Deliveries the process holds at most (claimed, queued, in flight or being recorded), as a multiple of `concurrency`. */
const HELD_PER_SLOT = 2;

/**
 * The least time between the starts of two claim statements of one process. A claim's cost is
 * mostly its own (finding the endpoints with work, their places and counts), not its rows': one
 * started for every answer that frees a place takes one or two rows at that price. Waiting a few
 * milliseconds lets the places freed meanwhile go in one claim.
 */
const CLAIM_SPACING_MS = 5;

/**
 * After a claim that found nothing due, how long answers start no claim (those within it start
 * one at its end): the deliveries of another replica's fan-out under this process's leases
 * (which kick only that replica) wait about this long more, and a worker fed by its own fan-out
 * runs at most about 20 empty claims a second, not one per answer.
 */
const IDLE_CLAIM_PAUSE_MS = 50;

/** How many times an answer's recording is tried before the answer is given up. */
const RECORDING_TRIES = 4;
/** The wait before the next try, times the tries so far. */
const RECORDING_RETRY_MS = 250;

export interface DeliveryWorkerOptions {
  db: Db;
  secretsKey: Buffer;
  /** Seconds between attempts (WEBHOOK_RETRY_SCHEDULE). */
  schedule: number[];
  /** How often to look for due deliveries when not kicked. */
  pollIntervalMs: number;
  /** How long a receiver has to answer (10 s). */
  timeoutMs?: number;
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /**
   * Attempts in flight at once to one endpoint, across every replica (4): one process at a time
   * holds an endpoint's lease and its deliveries, and starts no more than this at once.
   */
  endpointConcurrency?: number;
  /** How long a claim holds unless renewed (8 s); a dead worker's rows return after it. */
  leaseMs?: number;
  /** WEBHOOK_ALLOW_INSECURE_TARGETS: plain http and the address 127.0.0.1 (tests only). */
  allowInsecureTargets: boolean;
  /** How host names are resolved; the system resolver by default. */
  resolve?: HostResolver;
  /** How long it claims an endpoint's deliveries under one lease (`LEASE_TENURE_MS`). */
  leaseTenureMs?: number;
  /** The clock that decides whether a rotated-out secret still signs (tests set it). */
  now?: () => Date;
  /** Called after the commit that disabled an endpoint for failing (the owners' email). */
  onEndpointDisabled?: (endpoint: EndpointRow, lastError: string | null) => Promise<void>;
  /** Called after the commit of a failed attempt that raised alerts (their emails). */
  onAlertsRaised?: () => Promise<void>;
  /** The OAuth tokens of endpoints that use them (shared with the test event). */
  tokens?: OAuthTokens;
  /**
   * Where endpoints' `rate_limit_per_second` is counted: the runtime's rate-limit store (Redis,
   * shared by every replica, when REDIS_URL is set; else this process's memory). Default: a
   * store in this process's memory.
   */
  pacing?: RateLimitStore;
}

/** What a batch opens of an endpoint once: its signing secrets and its `auth`. */
interface OpenedEndpoint {
  secrets: string[];
  auth: EndpointAuthIn | null;
}

/**
 * Claims due deliveries (`FOR UPDATE SKIP LOCKED`, so any number of replicas share the work
 * without sending one twice) with their endpoints' leases, queues them per endpoint, and sends
 * each as soon as its endpoint has a free place (its cap) and the process a free slot: rebuilds
 * and signs each body, POSTs it and records the attempt. Polls every `pollIntervalMs` and
 * whenever kicked (new deliveries in this process, a request over).
 */
export class DeliveryWorker implements FanOutClaimer {
  /** Attempts this worker made (delivered or failed); test events not included. */
  attempts = 0;
  /** This process's id in the endpoints' leases. */
  readonly workerId = newId();
  readonly tokens: OAuthTokens;
  private readonly db: Db;
  private readonly pacing: RateLimitStore;
  private readonly concurrency: number;
  private readonly endpointConcurrency: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly leaseTenureMs: number;
  private readonly maxAttempts: number;
  /** 2xx answers, recorded in batches. */
  private readonly delivered: Batcher<DeliveredAttempt, void>;
  /** Attempts and test events not finished (request or recording), for `stop` to wait on. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Claimed batches whose attempts are being opened, for `stop` to wait on. */
  private readonly starting = new Set<Promise<void>>();
  /** Requests under way: at most `concurrency`. */
  private busy = 0;
  /** Deliveries the claims under way may take: counted as held until they return. */
  private reserved = 0;
  /** Claim statements under way (at most `CLAIMS_AT_ONCE`). */
  private claiming = 0;
  /** When the last claim statement began. */
  private lastClaimAt = 0;
  /** A kick came while every claim was under way: look again when one ends. */
  private kickWaiting = false;
  /**
   * The deliveries this worker has claimed and not yet recorded, by id, with their endpoint:
   * their claims and their endpoints' leases are renewed.
   */
  private readonly held = new Map<string, string>();
  /** Held deliveries per endpoint. */
  private readonly heldOf = new Map<string, number>();
  /** Per endpoint, its claimed deliveries waiting for a place: started in claim order. */
  private readonly queues = new Map<string, QueuedAttempt[]>();
  /** Per endpoint, its requests under way in this process: at most `endpointConcurrency`. */
  private readonly sendingTo = new Map<string, number>();
  /**
   * Per endpoint whose lease this process may hold (from its first claim of the endpoint until
   * it gives the lease back), when its tenure ends.
   */
  private readonly tenureEnds = new Map<string, number>();
  /** Endpoints whose lease another process wants a turn at: handed to it after the tenure. */
  private readonly wanted = new Set<string>();
  /** Fan-out statements under way that may claim for this worker: when each began, and its end. */
  private readonly fanOutOffers = new Map<FanOutClaim, { at: number; end: () => void }>();
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  /**
   * A look for due deliveries set for later (`kickIn`): when the earliest delivery waiting for
   * its rate is due again, or when claims may start again after their spacing.
   */
  private laterKick: { at: number; timer: ReturnType<typeof setTimeout> } | null = null;
  private stopped = false;
  private kicked = false;
  private saturated = false;
  /**
   * When the last claim took nothing and passed over no endpoint of its own (else null): for a
   * while after it, answers start no claim (`attemptRecorded`), kicks do.
   */
  private foundNothingDueAt: number | null = null;
  /** The end of the pause after an empty claim, set when an answer came within it. */
  private pauseEnd: ReturnType<typeof setTimeout> | null = null;
  /** Endpoints whose lease the claim under way hands over: no fan-out claims for them. */
  private readonly releasing = new Set<string>();
  private wake: (() => void) | null = null;
  private loopDone: Promise<void> = Promise.resolve();

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.db = options.db;
    this.pacing = options.pacing ?? new MemoryRateLimitStore();
    this.concurrency = options.concurrency ?? 64;
    this.endpointConcurrency = options.endpointConcurrency ?? 4;
    this.timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.leaseMs = options.leaseMs ?? CLAIM_LEASE_MS;
    this.leaseTenureMs = options.leaseTenureMs ?? LEASE_TENURE_MS;
    this.maxAttempts = maxAttempts(options.schedule);
    this.tokens =
      options.tokens ??
      new OAuthTokens({
        allowInsecureTargets: options.allowInsecureTargets,
        resolve: options.resolve,
        timeoutMs: this.timeoutMs,
      });
    this.delivered = new Batcher<DeliveredAttempt, void>(async (attempts) => {
      await recordDeliveredBatch(this.db, attempts);
      return attempts.map(() => undefined);
    });
  }

  start(): void {
    this.loopDone = this.loop();
    this.heartbeat = setInterval(() => this.renewHeld(), this.leaseMs / 4);
  }

  /**
   * Renews the claims this worker holds and the leases of their endpoints; a failed renewal is
   * tried at the next beat.
   */
  private renewHeld(): void {
    if (this.held.size === 0 && this.tenureEnds.size === 0) return;
    // The leases of endpoints it holds nothing of now are given back: another replica may take
    // them at once. Not one a claim under way is taking: it writes a time after its start.
    for (const endpointId of this.tenureEnds.keys()) {
      if (this.heldOf.has(endpointId)) continue;
      this.tenureEnds.delete(endpointId);
      this.wanted.delete(endpointId);
    }
    // Nor one a fan-out under way may be taking for this worker.
    const since = Math.min(
      this.claiming > 0 ? this.lastClaimAt : Date.now(),
      ...[...this.fanOutOffers.values()].map((offer) => offer.at),
    );
    Promise.all([
      renewClaims(this.db, [...this.held.keys()], this.leaseMs),
      renewLeases(this.db, this.workerId, [...this.heldOf.keys()], {
        leaseMs: this.leaseMs,
        giveBackBefore: new Date(since + this.leaseMs),
      }).then(({ notEnabled, wanted, lost }) => {
        for (const endpointId of [...notEnabled, ...lost]) this.dropQueue(endpointId);
        for (const endpointId of wanted) this.wanted.add(endpointId);
      }),
    ]).catch((error: unknown) =>
      log.warn("renewing webhook claims failed; will retry", { error: messageOf(error) }),
    );
  }

  /**
   * An endpoint disabled or deleted since its deliveries were claimed, or whose lease this
   * process lost: those queued here are not sent, but given back unsent (a disabled endpoint's
   * are then stopped by the periodic pass).
   */
  private dropQueue(endpointId: string): void {
    const queue = this.queues.get(endpointId);
    if (!queue) return;
    this.queues.delete(endpointId);
    for (const queued of queue) this.letGo(queued.delivery.id);
    this.track(
      giveBackUnsent(this.db, queue),
      "giving back the queued deliveries of a disabled endpoint failed; their claims lapse",
    );
  }

  private hold(row: DeliveryRow): void {
    this.held.set(row.id, row.endpointId);
    this.heldOf.set(row.endpointId, (this.heldOf.get(row.endpointId) ?? 0) + 1);
  }

  private letGo(id: string): void {
    const endpointId = this.held.get(id);
    if (endpointId === undefined) return;
    this.held.delete(id);
    const left = (this.heldOf.get(endpointId) ?? 1) - 1;
    if (left > 0) {
      this.heldOf.set(endpointId, left);
    } else {
      this.heldOf.delete(endpointId);
      // Its lease may be handed over now: the next claim does it.
      if (this.turnIsOver(endpointId, Date.now())) this.kick();
    }
  }

  /** Another process wants a turn at the endpoint and this one's tenure is over. */
  private turnIsOver(endpointId: string, now: number): boolean {
    const end = this.tenureEnds.get(endpointId);
    return end !== undefined && end <= now && this.wanted.has(endpointId);
  }

  /** Look for due deliveries now. */
  kick(): void {
    this.foundNothingDueAt = null;
    this.kicked = true;
    this.wake?.();
  }

  /**
   * Stops claiming, gives back the deliveries still queued (their attempts unopened), waits for
   * the attempts in flight to finish and be recorded, and gives back its endpoints' leases.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.kick();
    await this.loopDone;
    while (this.starting.size > 0 || this.inFlight.size > 0 || this.queues.size > 0) {
      const unsent = [...this.queues.values()].flat();
      this.queues.clear();
      for (const queued of unsent) this.letGo(queued.delivery.id);
      await Promise.allSettled([
        ...this.starting,
        ...this.inFlight,
        giveBackUnsent(this.db, unsent).catch((error: unknown) =>
          log.warn("giving back queued webhook deliveries failed; their claims lapse", {
            error: messageOf(error),
          }),
        ),
      ]);
    }
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.laterKick) clearTimeout(this.laterKick.timer);
    this.laterKick = null;
    if (this.pauseEnd) clearTimeout(this.pauseEnd);
    this.pauseEnd = null;
    await releaseLeases(this.db, this.workerId).catch((error: unknown) =>
      log.warn("giving back webhook endpoint leases failed; they lapse", {
        error: messageOf(error),
      }),
    );
  }

  /** Kicks the loop in `ms`, unless a kick is already set for earlier. */
  private kickIn(ms: number): void {
    const at = Date.now() + ms;
    if (this.stopped || (this.laterKick && this.laterKick.at <= at)) return;
    if (this.laterKick) clearTimeout(this.laterKick.timer);
    this.laterKick = {
      at,
      timer: setTimeout(() => {
        this.laterKick = null;
        this.kick();
      }, ms),
    };
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const room = this.room();
      const sinceLastClaim = Date.now() - this.lastClaimAt;
      if (room > 0 && this.claiming >= CLAIMS_AT_ONCE) {
        this.kickWaiting = true;
      } else if (room > 0 && sinceLastClaim < CLAIM_SPACING_MS) {
        this.kickIn(CLAIM_SPACING_MS - sinceLastClaim);
      } else if (room > 0) {
        this.lastClaimAt = Date.now();
        this.claiming += 1;
        this.reserved += room;
        const claim: Promise<void> = this.claimAndStart(room)
          .then(
            (claimed) => {
              // It took all the room: claim again once some frees up (`refillIfRoom`) or at the poll.
              this.saturated = claimed === room;
            },
            (error: unknown) =>
              log.warn("claiming webhook deliveries failed; will retry", {
                error: messageOf(error),
              }),
          )
          .finally(() => {
            this.claiming -= 1;
            this.reserved -= room;
            this.starting.delete(claim);
            if (this.kickWaiting) {
              this.kickWaiting = false;
              this.kick();
            }
          });
        this.starting.add(claim);
      } else {
        this.saturated = true;
      }
      if (this.stopped) break;
      await this.sleep(this.options.pollIntervalMs);
    }
  }

  /**
   * Claims up to `room` deliveries and queues them for their endpoints' places. The claim opens
   * the attempts of the deliveries that need no place in a rate's window, in the same statement.
   * Only the claim is awaited: the reads (and, for paced endpoints, their places and openings)
   * run while the loop claims again.
   */
  private async claimAndStart(room: number): Promise<number> {
    const now = new Date();
    // Endpoints whose turn here is over are claimed for no more; those it holds nothing of any
    // more are handed over with this claim (the only one under way: `CLAIMS_AT_ONCE`).
    const over = this.turnsOver(now.getTime());
    // None while a fan-out may be claiming for this process: it may be taking one of them. And
    // a fan-out offered while this claim runs skips those it hands over (`releasing`).
    const release =
      this.fanOutOffers.size > 0 ? [] : over.filter((endpointId) => !this.heldOf.has(endpointId));
    for (const endpointId of release) {
      this.tenureEnds.delete(endpointId);
      this.wanted.delete(endpointId);
      this.releasing.add(endpointId);
    }
    const full = this.fullEndpoints();
    try {
      const claimed = await claimAndOpenAttempts(
        this.db,
        room,
        {
          workerId: this.workerId,
          leaseMs: this.leaseMs,
          perEndpoint: this.endpointConcurrency * CLAIM_AHEAD,
          skipEndpoints: [...full, ...over],
          releaseEndpoints: release,
        },
        now,
      );
      this.adopt(claimed, now);
      this.foundNothingDueAt =
        claimed.rows.length === 0 && full.length + over.length === 0 ? Date.now() : null;
      return claimed.rows.length;
    } finally {
      for (const endpointId of release) this.releasing.delete(endpointId);
    }
  }

  /** Endpoints whose turn here is over: claimed for no more. */
  private turnsOver(now: number): string[] {
    return [...this.tenureEnds.keys()].filter((id) => this.turnIsOver(id, now));
  }

  /** Endpoints with enough queued and under way here (those being recorded do not count). */
  private fullEndpoints(): string[] {
    return [...this.queues]
      .filter(
        ([endpointId, queue]) =>
          queue.length + (this.sendingTo.get(endpointId) ?? 0) >=
          this.endpointConcurrency * QUEUE_FULL,
      )
      .map(([endpointId]) => endpointId);
  }

  /** Claimed deliveries (claimed at `now`) are held and queued for their endpoints' places. */
  private adopt({ rows, opened, context }: OpenedClaim, now: Date): void {
    for (const row of rows) {
      if (!this.tenureEnds.has(row.endpointId)) {
        this.tenureEnds.set(row.endpointId, now.getTime() + this.leaseTenureMs);
      }
    }
    if (rows.length === 0) return;
    for (const row of rows) this.hold(row);
    const starting: Promise<void> = this.startClaimed(rows, opened, context)
      .catch((error: unknown) =>
        log.warn("starting webhook deliveries failed; their claims are given back", {
          error: messageOf(error),
        }),
      )
      .finally(() => this.starting.delete(starting));
    this.starting.add(starting);
  }

  /**
   * What the next fan-out statement of this process may claim of the deliveries it inserts
   * (`fanOutStoryEvents`): half the room, so that the claims keep the rest for retries and for
   * endpoints with a backlog; not for endpoints with enough queued here, whose turn is over, or
   * whose lease the claim under way hands over. Reserved until the statement ends
   * (`claimedByFanOut`), and `stop` waits for that.
   */
  offerToFanOut(): FanOutClaim | null {
    const limit = Math.floor(this.room() / 2);
    if (this.stopped || limit <= 0) return null;
    const offer: FanOutClaim = {
      workerId: this.workerId,
      leaseMs: this.leaseMs,
      perEndpoint: this.endpointConcurrency * CLAIM_AHEAD,
      limit,
      skipEndpoints: [...this.fullEndpoints(), ...this.turnsOver(Date.now()), ...this.releasing],
    };
    this.reserved += limit;
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    }).then(() => {
      this.starting.delete(ended);
    });
    this.starting.add(ended);
    this.fanOutOffers.set(offer, { at: Date.now(), end });
    return offer;
  }

  /** A fan-out statement of an offer ended: what it claimed is queued as a claim's would be. */
  claimedByFanOut(offer: FanOutClaim, claimed: OpenedClaim | null): void {
    const pending = this.fanOutOffers.get(offer);
    if (!pending) return;
    this.fanOutOffers.delete(offer);
    this.reserved -= offer.limit;
    try {
      if (claimed) this.adopt(claimed, new Date(pending.at));
    } finally {
      pending.end();
    }
    this.refillIfRoom();
  }

  /**
   * Queues claimed deliveries with what their claim read. Those opened with their claim are
   * queued at once; those of paced endpoints take their places first, and are opened or made to
   * wait.
   */
  private async startClaimed(
    claimed: DeliveryRow[],
    openedWithClaim: Set<string>,
    context: Map<string, ClaimedContext>,
  ): Promise<void> {
    let rows = claimed;
    // Each endpoint as its claim read it.
    const endpoints = new Map<string, EndpointRow>();
    for (const read of context.values()) endpoints.set(read.endpoint.id, read.endpoint);
    // One body per event for the whole batch, from the stories its claim read.
    let bodies: Map<string, string>;
    let sendable: Set<string>;
    try {
      // The attempts are opened before any request leaves: every call a receiver sees is in the
      // log, even if this process dies before its answer. (Should a step fail after the opening,
      // the claims are given back and the next attempt closes these as unanswered.)
      bodies = await claimedBodies(this.db, rows, context);
      // Those over their endpoint's rate wait, unopened; the others' attempts are opened. Both
      // at once: a place in an endpoint's window is used as soon after it is taken as can be.
      // Deliveries opened with the claim need no place (their endpoint had no rate then).
      const { fit, beyond } = this.pacedThatFit(
        rows.filter((row) => !openedWithClaim.has(row.id)),
        endpoints,
      );
      const paced = await paceDeliveries(this.pacing, fit, endpoints);
      const go = paced.go;
      const waiting = [...paced.waiting, ...beyond];
      this.letWait(waiting);
      const toOpen = new Set(go.map((row) => row.id));
      rows = rows.filter((row) => openedWithClaim.has(row.id) || toOpen.has(row.id));
      const [, openedNow] = await Promise.all([
        deferDeliveries(this.db, waiting),
        openAttempts(this.db, go),
      ]);
      sendable = new Set([...openedWithClaim, ...openedNow]);
    } catch (error) {
      for (const row of claimed) this.letGo(row.id);
      // Nothing was sent: the attempts the claim opened are removed, the other claims let go.
      await Promise.all([
        giveBackUnsent(
          this.db,
          claimed
            .filter((row) => openedWithClaim.has(row.id))
            .map((delivery) => ({ delivery, attempt: delivery.attempts })),
        ),
        releaseClaims(
          this.db,
          claimed.filter((row) => !openedWithClaim.has(row.id)).map((row) => row.id),
        ),
      ]).catch(() => undefined);
      this.refillIfRoom();
      if (this.stopped) return;
      throw error;
    }
    // Each endpoint's secrets and credentials are opened once per batch.
    const opened = new Map<string, OpenedEndpoint>();
    const now = this.options.now?.() ?? new Date();
    const secretOf = (endpoint: EndpointRow) => {
      let found = opened.get(endpoint.id);
      if (found === undefined) {
        found = {
          secrets: signingSecrets(endpoint, this.options.secretsKey, now),
          auth: openEndpointAuth(endpoint, this.options.secretsKey),
        };
        opened.set(endpoint.id, found);
      }
      return found;
    };
    for (const row of rows) {
      const endpoint = endpoints.get(row.endpointId);
      if (!sendable.has(row.id) || !endpoint) {
        // Nothing to send (a deleted or disabled endpoint): settled at once, no place taken.
        this.track(this.settleUnsent(row, endpoint), "webhook delivery not sent");
        continue;
      }
      // A claim that opened the attempt returned the row with it counted; `openAttempts` did not.
      const attempt = openedWithClaim.has(row.id) ? row.attempts : row.attempts + 1;
      this.enqueue({ delivery: row, endpoint, attempt, bodies, secretOf });
    }
    for (const endpointId of new Set(rows.map((row) => row.endpointId))) {
      this.startQueued(endpointId);
    }
  }

  /**
   * A paced endpoint's deliveries take places in its rate's window only as they can start here
   * (its free places, less those queued): a place is then used as soon as it is taken, and the
   * receiver never sees queued requests of one window arrive with the next. The others wait,
   * unopened, about the time one place of its rate takes.
   */
  private pacedThatFit(
    rows: DeliveryRow[],
    endpoints: Map<string, EndpointRow>,
  ): { fit: DeliveryRow[]; beyond: { delivery: DeliveryRow; waitMs: number }[] } {
    const free = new Map<string, number>();
    const fit: DeliveryRow[] = [];
    const beyond: { delivery: DeliveryRow; waitMs: number }[] = [];
    for (const row of rows) {
      const endpoint = endpoints.get(row.endpointId);
      const rate = endpoint?.status === "enabled" ? endpoint.rateLimitPerSecond : null;
      if (rate === null || rate === undefined) {
        fit.push(row);
        continue;
      }
      const places =
        free.get(row.endpointId) ??
        this.endpointConcurrency -
          (this.sendingTo.get(row.endpointId) ?? 0) -
          (this.queues.get(row.endpointId)?.length ?? 0);
      if (places > 0) fit.push(row);
      else beyond.push({ delivery: row, waitMs: Math.ceil(1_000 / rate) });
      free.set(row.endpointId, places - 1);
    }
    return { fit, beyond };
  }

  private enqueue(queued: QueuedAttempt): void {
    const queue = this.queues.get(queued.delivery.endpointId);
    if (queue) queue.push(queued);
    else this.queues.set(queued.delivery.endpointId, [queued]);
  }

  /**
   * Starts the endpoint's queued deliveries while it has a free place (its cap) and the process
   * a free slot. Stopping, nothing more starts: `stop` gives the queued back.
   */
  private startQueued(endpointId: string): void {
    const queue = this.queues.get(endpointId);
    while (
      !this.stopped &&
      queue !== undefined &&
      queue.length > 0 &&
      this.busy < this.concurrency &&
      (this.sendingTo.get(endpointId) ?? 0) < this.endpointConcurrency
    ) {
      const next = queue.shift()!;
      this.busy += 1;
      this.sendingTo.set(endpointId, (this.sendingTo.get(endpointId) ?? 0) + 1);
      this.track(this.attempt(next), "webhook attempt failed");
    }
    if (queue?.length === 0) this.queues.delete(endpointId);
  }

  /**
   * A request is over: its endpoint's next queued delivery takes its place, and the slot, if
   * that endpoint has none waiting, goes to another endpoint's.
   */
  private requestOver(endpointId: string): void {
    this.busy -= 1;
    const sending = (this.sendingTo.get(endpointId) ?? 1) - 1;
    if (sending > 0) this.sendingTo.set(endpointId, sending);
    else this.sendingTo.delete(endpointId);
    this.startQueued(endpointId);
    if (this.busy >= this.concurrency) return;
    for (const other of this.queues.keys()) {
      if (this.busy >= this.concurrency) break;
      this.startQueued(other);
    }
  }

  /**
   * Claimed deliveries over their endpoint's rate are not this worker's to send: they are made
   * due again when a place frees (`deferDeliveries`, unclaimed, no attempt counted), and the
   * loop looks again then.
   */
  private letWait(waiting: { delivery: DeliveryRow; waitMs: number }[]): void {
    if (waiting.length === 0) return;
    for (const { delivery } of waiting) this.letGo(delivery.id);
    this.kickIn(Math.min(...waiting.map(({ waitMs }) => waitMs)));
  }

  /** How many deliveries to claim now: what the process may hold, less what it holds. */
  private room(): number {
    return this.concurrency * HELD_PER_SLOT - this.held.size - this.reserved;
  }

  private refillIfRoom(): void {
    if (this.saturated && this.room() >= this.concurrency / 4) {
      this.saturated = false;
      this.kick();
    }
  }

  /**
   * A request is over, or an answer recorded (or a delivery settled without one): its endpoint
   * has room in its queue, or the process in what it holds, so the claims look again (spaced:
   * those of a few milliseconds go in one claim). While the process holds all it may, the
   * refill rule decides instead. There is no claim while no attempt ends: no busy loop when
   * every due row waits on an endpoint another replica holds.
   */
  private attemptRecorded(delivery: DeliveryRow, dueAgain = false): void {
    // The last claim, less than `IDLE_CLAIM_PAUSE_MS` ago, found nothing due and skipped
    // nothing: the claims look again when the pause ends (or at a kick: this process's fan-out
    // leaving some unclaimed, a rate's window), unless the answer let a delivery due (given
    // back, or the next event of its story in order). Another replica's fan-out does not kick
    // this process, so the pause is short; the answers within one go in one claim.
    const pauseLeft =
      this.foundNothingDueAt === null
        ? 0
        : this.foundNothingDueAt + IDLE_CLAIM_PAUSE_MS - Date.now();
    if (pauseLeft > 0 && !dueAgain && delivery.storyOrder === null) {
      this.pauseEnd ??= setTimeout(() => {
        this.pauseEnd = null;
        this.lookAgain();
      }, pauseLeft);
      return;
    }
    this.lookAgain();
  }

  /** The claims look again now, unless the process holds all it may (the refill rule then). */
  private lookAgain(): void {
    if (this.saturated) this.refillIfRoom();
    else this.kick();
  }

  /** A claimed delivery with nothing to send: its endpoint deleted, or not enabled. */
  private async settleUnsent(
    delivery: DeliveryRow,
    endpoint: EndpointRow | undefined,
  ): Promise<void> {
    try {
      // A deleted endpoint took its deliveries with it.
      if (!endpoint) return;
      // Its endpoint is disabled; or it was enabled between the two reads: claimed again later.
      if (endpoint.status !== "enabled") await stopClaimedDelivery(this.db, delivery);
      else await releaseClaims(this.db, [delivery.id]);
    } finally {
      this.letGo(delivery.id);
      this.attemptRecorded(delivery, endpoint?.status === "enabled");
    }
  }

  /** One queued delivery sent: its place and slot are free once the request is over. */
  private async attempt(queued: QueuedAttempt): Promise<void> {
    const { delivery, attempt } = queued;
    let placeHeld = true;
    const freePlace = () => {
      if (!placeHeld) return;
      placeHeld = false;
      this.requestOver(delivery.endpointId);
      // Its endpoint's queue has room: the next claim may fill it while the answer is recorded.
      this.attemptRecorded(delivery);
    };
    try {
      // Each attempt joins the trace of the transition that made its event (through the fan-out).
      await inSpan(
        "webhook attempt",
        {
          kind: SpanKind.INTERNAL,
          parent: contextFromTraceParent(delivery.traceParent),
          attributes: {
            "newsroom.webhook.delivery_id": delivery.id,
            "newsroom.webhook.endpoint_id": delivery.endpointId,
            "newsroom.webhook.event_id": delivery.eventId,
            "newsroom.webhook.event_type": delivery.eventType,
            "newsroom.webhook.attempt": attempt,
          },
        },
        () => this.sendAndRecord(queued, freePlace),
      );
    } finally {
      // A failure before the request ended frees its place only now.
      freePlace();
      // Recorded: what the process holds is one fewer, so the claims may take one more.
      this.letGo(delivery.id);
      this.attemptRecorded(delivery);
    }
  }

  private async sendAndRecord(queued: QueuedAttempt, requestOver: () => void): Promise<void> {
    const { delivery, endpoint, bodies, secretOf } = queued;
    const { secrets, auth } = secretOf(endpoint);
    attemptStarted(endpoint.id);
    const startedAt = new Date();
    let result: Awaited<ReturnType<typeof sendAuthenticated>>;
    try {
      result = await sendAuthenticated(endpoint.id, auth, this.tokens, {
        url: endpoint.url,
        secret: secrets,
        eventId: delivery.eventId,
        body: bodies.get(delivery.eventId)!,
        timeoutMs: this.timeoutMs,
        allowInsecureTargets: this.options.allowInsecureTargets,
        resolve: this.options.resolve,
      });
    } finally {
      attemptEnded(endpoint.id);
    }
    requestOver();
    this.attempts += 1;
    if (result.ok) {
      const at = new Date();
      webhookAttempts.inc({ outcome: "delivered" });
      webhookDeliveries.inc({ outcome: "delivered" });
      // The attempt's span is active: the time from transition to delivery points at its trace.
      webhookDeliveryLatency.observe(
        {},
        Math.max(0, (at.getTime() - delivery.eventCreatedAt.getTime()) / 1000),
        currentTraceIds(),
      );
      await this.recordingTriedAgain(delivery, () =>
        this.delivered.submit({
          delivery,
          statusCode: result.statusCode ?? 200,
          at,
          durationMs: result.durationMs,
          responseBody: result.responseBody,
        }),
      );
      return;
    }
    const outcome = await this.recordingTriedAgain(delivery, () =>
      recordFailedAttempt(
        this.db,
        delivery,
        { ...result, startedAt },
        {
          maxAttempts: this.maxAttempts,
          nextAttemptAt: (attempts) =>
            laterOf(nextAttemptAt(this.options.schedule, attempts), result.retryAfter),
          disableAfter: DISABLE_AFTER_FAILED_DELIVERIES,
          gone: result.statusCode === GONE,
        },
      ),
    );
    webhookAttempts.inc({ outcome: outcome.status === "failed" ? "failed" : "retry" });
    if (outcome.status === "failed") webhookDeliveries.inc({ outcome: "failed" });
    if (outcome.endpointDisabled) {
      this.dropQueue(endpoint.id);
      webhookEndpointDisablements.inc({ reason: result.statusCode === GONE ? "gone" : "failing" });
      log.warn("webhook endpoint disabled after failed deliveries or a 410 Gone", {
        endpoint_id: endpoint.id,
        organization_id: endpoint.organizationId,
      });
      await this.options.onEndpointDisabled?.(endpoint, result.error);
    }
    if (outcome.alerts > 0) {
      // Their operational events are deliveries due now.
      this.kick();
      await this.options.onAlertsRaised?.();
    }
  }

  /**
   * An answer's recording, tried again when it fails (a lock or statement timeout on a busy
   * database, a lost connection): until then the delivery stays held and its claim renewed, so
   * an answer is not lost, and the delivery not sent again, for one failed write. Trying again
   * is safe: a recording that did commit leaves nothing for the next one to change (a 2xx finds
   * its delivery delivered; a failure finds its attempt closed).
   */
  private async recordingTriedAgain<T>(delivery: DeliveryRow, write: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await write();
      } catch (error) {
        if (tries >= RECORDING_TRIES) throw error;
        log.warn("recording a webhook answer failed; trying again", {
          delivery_id: delivery.id,
          error: messageOf(error),
        });
        await new Promise((resolve) => setTimeout(resolve, RECORDING_RETRY_MS * tries));
      }
    }
  }

  private track(work: Promise<void>, failure: string): void {
    const tracked: Promise<void> = work
      .catch((error: unknown) => log.error(failure, { error: messageOf(error) }))
      .finally(() => {
        this.inFlight.delete(tracked);
        this.refillIfRoom();
      });
    this.inFlight.add(tracked);
  }

  private sleep(ms: number): Promise<void> {
    if (this.kicked || this.stopped) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        this.kicked = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

/** A claimed delivery, its attempt opened, waiting for a place of its endpoint. */
interface QueuedAttempt {
  delivery: DeliveryRow;
  endpoint: EndpointRow;
  /** Its attempt's number (the `webhook.attempt` of its span). */
  attempt: number;
  /** Its batch's bodies, by event. */
  bodies: Map<string, string>;
  secretOf: (endpoint: EndpointRow) => OpenedEndpoint;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
