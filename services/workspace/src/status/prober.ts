import type { Db } from "@newsroom/shared/db/index";
import { outboxEvents, statusComponents, statusDailyUptime } from "@newsroom/shared/db/schema";
import { log } from "@newsroom/shared/log";
import { isNull, lt, max, min, sql } from "drizzle-orm";
import { COMPONENTS, type ComponentId, type ComponentState, THRESHOLDS, worse } from "./model.ts";
import { statusOutboxAgeSeconds } from "./outbox-relay.ts";
import { HISTORY_DAYS } from "./snapshot.ts";

/** One thing the prober checks, and what it found. */
export interface ProbeOutcome {
  probe: string;
  components: readonly ComponentId[];
  state: ComponentState;
  detail: string;
}

/** A process whose readiness is probed: its `/health/ready` at `url`, or `ready` in this process. */
export interface ProcessProbe {
  name: string;
  components: readonly ComponentId[];
  url?: string;
  /** What is read at `url` (default `/health/ready`). */
  path?: string;
  ready?: () => Promise<void>;
}

export interface ProbeTargets {
  processes: ProcessProbe[];
  /** The gateway's internal address, for its liveness and the real public reads. */
  gatewayUrl: string;
  /** The house newsroom's page and a hosted newsrooms' page through the gateway (paths). */
  reads: { path: string; components: readonly ComponentId[] }[];
  /** The webhook delivery queue's lag (the webhooks service's internal read). */
  deliveryQueue?: () => Promise<{ oldest_due_seconds: number }>;
}

const ALL_BEHIND_GATEWAY: readonly ComponentId[] = [
  "public-newsroom",
  "hosted-newsrooms",
  "client-api",
  "forms",
  "workspace",
];

async function timed<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  // Awaited here, not returned: a call that fails at once (a service not configured) hands back
  // a promise already rejected, and returning it would leave it without a handler for a tick,
  // which the test runner reports as an unhandled rejection.
  return await work(AbortSignal.timeout(THRESHOLDS.probeTimeoutMs));
}

function failure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function probeProcess(target: ProcessProbe): Promise<ProbeOutcome> {
  const outcome = (state: ComponentState, detail: string): ProbeOutcome => ({
    probe: `${target.name} ${target.path ?? "/health/ready"}`,
    components: target.components,
    state,
    detail,
  });
  try {
    if (target.url) {
      const response = await timed((signal) =>
        fetch(`${target.url!.replace(/\/+$/, "")}${target.path ?? "/health/ready"}`, { signal }),
      );
      await response.body?.cancel();
      if (!response.ok)
        return outcome("major_outage", `${target.name}: not ready (${response.status})`);
    } else if (target.ready) {
      await timed(
        (signal) =>
          new Promise<void>((resolve, reject) => {
            signal.addEventListener("abort", () => reject(new Error("timed out")));
            target.ready!().then(resolve, reject);
          }),
      );
    }
    return outcome("operational", `${target.name}: ready`);
  } catch (error) {
    return outcome("major_outage", `${target.name}: unreachable (${failure(error)})`);
  }
}

async function probeRead(
  gatewayUrl: string,
  read: ProbeTargets["reads"][number],
): Promise<ProbeOutcome> {
  const probe = `read ${read.path}`;
  const started = performance.now();
  try {
    const response = await timed((signal) =>
      fetch(`${gatewayUrl}${read.path}`, { signal, redirect: "manual" }),
    );
    await response.body?.cancel();
    const ms = Math.round(performance.now() - started);
    if (response.status >= 500) {
      return {
        probe,
        components: read.components,
        state: "major_outage",
        detail: `${read.path}: ${response.status}`,
      };
    }
    if (ms > THRESHOLDS.slowReadMs) {
      return {
        probe,
        components: read.components,
        state: "degraded_performance",
        detail: `${read.path}: ${ms} ms`,
      };
    }
    return {
      probe,
      components: read.components,
      state: "operational",
      detail: `${read.path}: ${ms} ms`,
    };
  } catch (error) {
    return {
      probe,
      components: read.components,
      state: "major_outage",
      detail: `${read.path}: ${failure(error)}`,
    };
  }
}

async function probeOutbox(db: Db): Promise<ProbeOutcome> {
  try {
    const seconds = await outboxAgeSeconds(db);
    return {
      probe: "outbox age",
      components: ["webhooks"],
      state: lagState(seconds, THRESHOLDS.outboxDegradedSeconds, THRESHOLDS.outboxOutageSeconds),
      detail: `outbox: oldest unsent event ${Math.round(seconds)} s old`,
    };
  } catch (error) {
    return {
      probe: "outbox age",
      components: ["workspace", "webhooks"],
      state: "major_outage",
      detail: `outbox: ${failure(error)}`,
    };
  }
}

async function probeDeliveryQueue(
  read: NonNullable<ProbeTargets["deliveryQueue"]>,
): Promise<ProbeOutcome> {
  try {
    const queue = await timed(() => read());
    return {
      probe: "delivery queue",
      components: ["webhooks"],
      state: lagState(
        queue.oldest_due_seconds,
        THRESHOLDS.deliveryLagDegradedSeconds,
        THRESHOLDS.deliveryLagOutageSeconds,
      ),
      detail: `deliveries: oldest due ${Math.round(queue.oldest_due_seconds)} s ago`,
    };
  } catch (error) {
    // The webhooks process's readiness probe says whether it is down; a failed read of its
    // queue alone is not an outage.
    return {
      probe: "delivery queue",
      components: ["webhooks"],
      state: "operational",
      detail: `deliveries: queue not read (${failure(error)})`,
    };
  }
}

function lagState(seconds: number, degraded: number, outage: number): ComponentState {
  if (seconds > outage) return "partial_outage";
  if (seconds > degraded) return "degraded_performance";
  return "operational";
}

async function outboxAgeSeconds(db: Db): Promise<number> {
  const [row] = await db
    .select({ oldest: min(outboxEvents.createdAt) })
    .from(outboxEvents)
    .where(isNull(outboxEvents.publishedAt));
  const stories = row?.oldest ? (Date.now() - new Date(row.oldest).getTime()) / 1000 : 0;
  return Math.max(0, stories, await statusOutboxAgeSeconds(db));
}

/** One round of every probe, at once. */
export async function probeAll(db: Db, targets: ProbeTargets): Promise<ProbeOutcome[]> {
  const gateway = targets.gatewayUrl.replace(/\/+$/, "");
  const work: Promise<ProbeOutcome>[] = [
    ...targets.processes.map(probeProcess),
    // The gateway's liveness, not its readiness: that fails with any one service behind it, whose
    // own probe names the component it serves.
    probeProcess({
      name: "gateway",
      url: gateway,
      path: "/health",
      components: ALL_BEHIND_GATEWAY,
    }),
    ...targets.reads.map((read) => probeRead(gateway, read)),
    probeOutbox(db),
  ];
  if (targets.deliveryQueue) work.push(probeDeliveryQueue(targets.deliveryQueue));
  return Promise.all(work);
}

/** Each component's state from a round's outcomes: the worst probe of it, and that probe's words. */
export function statesOf(
  outcomes: ProbeOutcome[],
): Map<ComponentId, { state: ComponentState; detail: string | null }> {
  const states = new Map<ComponentId, { state: ComponentState; detail: string | null }>();
  for (const component of COMPONENTS)
    states.set(component.id, { state: "operational", detail: null });
  for (const outcome of outcomes) {
    for (const id of outcome.components) {
      const current = states.get(id)!;
      const state = worse(current.state, outcome.state);
      if (state !== current.state || (outcome.state !== "operational" && !current.detail)) {
        states.set(id, { state, detail: outcome.detail });
      }
    }
  }
  return states;
}

const PROBER_LOCK = 7_314_420_901;

/**
 * Records a round: each component's state (its `updated_at` moves only when the state changed)
 * and its day's counts. Under a transaction-scoped advisory lock, and only when the last round
 * is at least half an interval old: replicas that probe at the same time record one round.
 * Whether it recorded.
 */
export async function recordRound(
  db: Db,
  states: Map<ComponentId, { state: ComponentState; detail: string | null }>,
  intervalMs: number,
  now = new Date(),
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${PROBER_LOCK})`);
    const [last] = await tx.select({ at: max(statusComponents.checkedAt) }).from(statusComponents);
    if (last?.at && now.getTime() - new Date(last.at).getTime() < intervalMs / 2) return false;
    const day = now.toISOString().slice(0, 10);
    for (const [id, { state, detail }] of states) {
      await tx
        .insert(statusComponents)
        .values({ id, derivedState: state, detail, checkedAt: now, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({
          target: statusComponents.id,
          set: {
            derivedState: state,
            detail,
            checkedAt: now,
            updatedAt: sql`case when ${statusComponents.derivedState} = ${state} then ${statusComponents.updatedAt} else ${now.toISOString()}::timestamptz end`,
          },
        });
      const counts = {
        degraded: state === "degraded_performance" ? 1 : 0,
        partialOutage: state === "partial_outage" ? 1 : 0,
        majorOutage: state === "major_outage" ? 1 : 0,
      };
      await tx
        .insert(statusDailyUptime)
        .values({ componentId: id, day, rounds: 1, ...counts })
        .onConflictDoUpdate({
          target: [statusDailyUptime.componentId, statusDailyUptime.day],
          set: {
            rounds: sql`${statusDailyUptime.rounds} + 1`,
            degraded: sql`${statusDailyUptime.degraded} + ${counts.degraded}`,
            partialOutage: sql`${statusDailyUptime.partialOutage} + ${counts.partialOutage}`,
            majorOutage: sql`${statusDailyUptime.majorOutage} + ${counts.majorOutage}`,
          },
        });
    }
    const oldest = new Date(now.getTime() - HISTORY_DAYS * 86_400_000).toISOString().slice(0, 10);
    await tx.delete(statusDailyUptime).where(lt(statusDailyUptime.day, oldest));
    return true;
  });
}

export interface StatusProber {
  /** Runs a round now (tests); resolves once it is recorded or skipped. */
  round(): Promise<void>;
  stop(): Promise<void>;
}

/** Probes every `intervalMs` (one round at a time) and records each round. */
export function startStatusProber(db: Db, targets: ProbeTargets, intervalMs: number): StatusProber {
  let running: Promise<void> | null = null;
  let stopped = false;
  const round = () => {
    if (stopped) return Promise.resolve();
    running ??= (async () => {
      try {
        const outcomes = await probeAll(db, targets);
        if (!stopped) await recordRound(db, statesOf(outcomes), intervalMs);
      } catch (error) {
        log.warn("status prober round failed; will retry", { error: failure(error) });
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const timer = setInterval(round, intervalMs);
  // The first round once the process is up (its own port listening).
  const first = setTimeout(round, Math.min(intervalMs, 2_000));
  return {
    round,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(first);
      await running;
    },
  };
}
