import { Batcher } from "@newsroom/shared/batch";
import type { Db } from "@newsroom/shared/db/index";
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
  openAttempts,
  recordDeliveredBatch,
  recordFailedAttempt,
  releaseClaims,
  renewClaims,
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
 * Claim statements one process runs at once. A slot freed while claims run is claimed for by
 * the next at once rather than after them: with a claim's round trip longer than a request to a
 * quick receiver, the claims, not the requests, set how fast a slot turns over (end to end,
 * four against two: 1,460 against 1,234 deliveries a second; six against four, alternating
 * runs: 1,566 and 1,486 against 1,373 and 1,238). Six leave four of the pool's ten connections
 * to the recordings and the fan-out (eight were no faster than six). Claims at once keep the
 * per-endpoint cap as replicas do: each counts what was in flight when it began and takes only
 * the first places of its endpoints' queues; a row another holds is skipped, and one it claimed
 * meanwhile fails the claim's recheck.
 */
const CLAIMS_AT_ONCE = 6;

/**
 * The least time between the starts of two claim statements of one process. A claim's cost is
 * mostly its own (finding the endpoints with work, their places and counts), not its rows': one
 * started for every answer that frees a place takes one or two rows at that price. Waiting a few
 * milliseconds lets the places freed meanwhile go in one claim.
 */
const CLAIM_SPACING_MS = 5;

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
  /** Attempts in flight at once to one endpoint, across every replica (4). */
  endpointConcurrency?: number;
  /** How long a claim holds unless renewed (8 s); a dead worker's rows return after it. */
  leaseMs?: number;
  /** WEBHOOK_ALLOW_INSECURE_TARGETS: plain http and the address 127.0.0.1 (tests only). */
  allowInsecureTargets: boolean;
  /** How host names are resolved; the system resolver by default. */
  resolve?: HostResolver;
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
 * without sending one twice), rebuilds and signs each body, POSTs it and records the attempt.
 * Polls every `pollIntervalMs` and whenever kicked (new deliveries in this process).
 */
export class DeliveryWorker {
  /** Attempts this worker made (delivered or failed); test events not included. */
  attempts = 0;
  readonly tokens: OAuthTokens;
  private readonly db: Db;
  private readonly pacing: RateLimitStore;
  private readonly concurrency: number;
  private readonly endpointConcurrency: number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  /** 2xx answers, recorded in batches. */
  private readonly delivered: Batcher<DeliveredAttempt, void>;
  /** Attempts and test events not finished (request or recording), for `stop` to wait on. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Claimed batches whose attempts are being opened, for `stop` to wait on. */
  private readonly starting = new Set<Promise<void>>();
  /** Claimed deliveries whose request is not over yet: at most `concurrency`. */
  private busy = 0;
  /** Slots the claims under way may fill: counted as taken until they return. */
  private reserved = 0;
  /** Claim statements under way (at most `CLAIMS_AT_ONCE`). */
  private claiming = 0;
  /** When the last claim statement began. */
  private lastClaimAt = 0;
  /** A kick came while every claim was under way: look again when one ends. */
  private kickWaiting = false;
  /** The deliveries this worker has claimed and not yet recorded: their claims are renewed. */
  private readonly held = new Set<string>();
  /** Held deliveries whose request is over, their answer being recorded: not in flight. */
  private readonly answered = new Set<string>();
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  /**
   * A look for due deliveries set for later (`kickIn`): when the earliest delivery waiting for
   * its rate is due again, or when claims may start again after their spacing.
   */
  private laterKick: { at: number; timer: ReturnType<typeof setTimeout> } | null = null;
  private stopped = false;
  private kicked = false;
  private saturated = false;
  private wake: (() => void) | null = null;
  private loopDone: Promise<void> = Promise.resolve();

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.db = options.db;
    this.pacing = options.pacing ?? new MemoryRateLimitStore();
    this.concurrency = options.concurrency ?? 64;
    this.endpointConcurrency = options.endpointConcurrency ?? 4;
    this.timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.leaseMs = options.leaseMs ?? CLAIM_LEASE_MS;
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

  /** Renews the claims of the attempts under way; a failed renewal is tried at the next beat. */
  private renewHeld(): void {
    if (this.held.size === 0) return;
    renewClaims(this.db, [...this.held], this.leaseMs).catch((error: unknown) =>
      log.warn("renewing webhook claims failed; will retry", { error: messageOf(error) }),
    );
  }

  /** Look for due deliveries now. */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Stops claiming and waits for the attempts in flight to finish and be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.kick();
    await this.loopDone;
    while (this.starting.size > 0 || this.inFlight.size > 0) {
      await Promise.allSettled([...this.starting, ...this.inFlight]);
    }
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.laterKick) clearTimeout(this.laterKick.timer);
    this.laterKick = null;
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
              // Full: wait for a quarter of the slots to free up (or the poll) before claiming.
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
   * Claims up to `room` deliveries and starts them. The claim opens the attempts of the
   * deliveries that need no place in a rate's window, in the same statement. Only the claim is
   * awaited: the reads (and, for paced endpoints, their places and openings) run while the loop
   * claims again. Up to `CLAIMS_AT_ONCE` claims run at once, so a slot freed while one runs is
   * claimed for at once by the next; the per-endpoint cap holds as between replicas.
   */
  private async claimAndStart(room: number): Promise<number> {
    const { rows, opened, context } = await claimAndOpenAttempts(
      this.db,
      room,
      {
        leaseMs: this.leaseMs,
        perEndpoint: this.endpointConcurrency,
        // Renewed claims are running attempts; a dead worker's stop counting when they lapse.
        attemptMs: this.leaseMs,
      },
      new Date(),
      [...this.answered],
    );
    if (rows.length === 0) return 0;
    this.busy += rows.length;
    for (const row of rows) this.held.add(row.id);
    const starting: Promise<void> = this.startClaimed(rows, opened, context)
      .catch((error: unknown) =>
        log.warn("starting webhook deliveries failed; their claims are given back", {
          error: messageOf(error),
        }),
      )
      .finally(() => this.starting.delete(starting));
    this.starting.add(starting);
    return rows.length;
  }

  /**
   * Sends claimed deliveries with what their claim read. Those opened with their claim go at
   * once; those of paced endpoints take their places first, and are opened or made to wait.
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
      const { go, waiting } = await paceDeliveries(
        this.pacing,
        rows.filter((row) => !openedWithClaim.has(row.id)),
        endpoints,
      );
      this.letWait(waiting);
      const toOpen = new Set(go.map((row) => row.id));
      rows = rows.filter((row) => openedWithClaim.has(row.id) || toOpen.has(row.id));
      const [, openedNow] = await Promise.all([
        deferDeliveries(this.db, waiting),
        openAttempts(this.db, go),
      ]);
      sendable = new Set([...openedWithClaim, ...openedNow]);
    } catch (error) {
      this.busy -= rows.length;
      for (const row of rows) this.held.delete(row.id);
      await releaseClaims(
        this.db,
        claimed.map((row) => row.id),
      ).catch(() => undefined);
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
      // A claim that opened the attempt returned the row with it counted; `openAttempts` did not.
      const attempt = openedWithClaim.has(row.id) ? row.attempts : row.attempts + 1;
      this.track(
        this.attempt(
          row,
          sendable.has(row.id),
          attempt,
          endpoints.get(row.endpointId),
          bodies,
          secretOf,
        ),
        "webhook attempt failed",
      );
    }
  }

  /**
   * Claimed deliveries over their endpoint's rate are not this worker's to send: they are made
   * due again when a place frees (`deferDeliveries`, unclaimed, no attempt counted), and the
   * loop looks again then.
   */
  private letWait(waiting: { delivery: DeliveryRow; waitMs: number }[]): void {
    if (waiting.length === 0) return;
    this.busy -= waiting.length;
    for (const { delivery } of waiting) this.held.delete(delivery.id);
    this.kickIn(Math.min(...waiting.map(({ waitMs }) => waitMs)));
  }

  /**
   * How many deliveries to claim now: the free request slots, or none while as many finished
   * attempts as there are slots still wait to be recorded (the database is behind).
   */
  private room(): number {
    const recording = this.inFlight.size - this.busy;
    return recording >= this.concurrency ? 0 : this.concurrency - this.busy - this.reserved;
  }

  private refillIfRoom(): void {
    if (this.saturated && this.room() >= this.concurrency / 4) {
      this.saturated = false;
      this.kick();
    }
  }

  /**
   * An attempt's request is over (or its attempt ended without one), so its endpoint is one below
   * its cap: rows the last claim left behind for that cap may be claimed now rather than at the
   * next poll. While every slot is taken, the refill rule decides instead. Each kick is at most
   * one claim, and there is none while no attempt ends: no busy loop when every due row waits
   * on a capped endpoint.
   */
  private attemptRecorded(): void {
    if (this.saturated) this.refillIfRoom();
    else this.kick();
  }

  /** One claimed delivery: its slot is free once the request is over, before the recording. */
  private async attempt(
    delivery: DeliveryRow,
    opened: boolean,
    attempt: number,
    endpoint: EndpointRow | undefined,
    bodies: Map<string, string>,
    secretOf: (endpoint: EndpointRow) => OpenedEndpoint,
  ): Promise<void> {
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      this.busy -= 1;
      this.refillIfRoom();
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
        () => this.sendAndRecord(delivery, opened, endpoint, bodies, secretOf, freeSlot),
      );
    } finally {
      this.held.delete(delivery.id);
      this.answered.delete(delivery.id);
      // A request that never ended (no endpoint, not opened, a failure before it) frees its
      // place only now. One that ended freed it then, and its claim was kicked then: its
      // recording frees nothing more for this worker (only the room, when recordings held it up).
      const placeFreedNow = slotHeld;
      freeSlot();
      if (placeFreedNow) this.attemptRecorded();
    }
  }

  /** `opened`: its attempt was opened (still pending, its endpoint enabled): it is sent. */
  private async sendAndRecord(
    delivery: DeliveryRow,
    opened: boolean,
    endpoint: EndpointRow | undefined,
    bodies: Map<string, string>,
    secretOf: (endpoint: EndpointRow) => OpenedEndpoint,
    requestOver: () => void,
  ): Promise<void> {
    // A deleted endpoint took its deliveries with it.
    if (!endpoint) return;
    if (!opened) {
      // Its endpoint is disabled; or it was enabled between the two reads: claimed again later.
      if (endpoint.status !== "enabled") await stopClaimedDelivery(this.db, delivery);
      else await releaseClaims(this.db, [delivery.id]);
      return;
    }
    const { secrets, auth } = secretOf(endpoint);
    attemptStarted(endpoint.id);
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
    // Its endpoint has one attempt fewer in flight: the next claim may fill its place while
    // the answer is recorded.
    this.answered.add(delivery.id);
    this.attemptRecorded();
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
      recordFailedAttempt(this.db, delivery, result, {
        maxAttempts: this.maxAttempts,
        nextAttemptAt: (attempts) =>
          laterOf(nextAttemptAt(this.options.schedule, attempts), result.retryAfter),
        disableAfter: DISABLE_AFTER_FAILED_DELIVERIES,
        gone: result.statusCode === GONE,
      }),
    );
    webhookAttempts.inc({ outcome: outcome.status === "failed" ? "failed" : "retry" });
    if (outcome.status === "failed") webhookDeliveries.inc({ outcome: "failed" });
    if (outcome.endpointDisabled) {
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
