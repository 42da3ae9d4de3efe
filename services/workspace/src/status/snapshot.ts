import type { Db } from "@newsroom/shared/db/index";
import { statusComponents, statusDailyUptime, statusIncidents } from "@newsroom/shared/db/schema";
import { log } from "@newsroom/shared/log";
import { desc, eq, gte } from "drizzle-orm";
import { recentIncidents } from "./incidents.ts";
import { type IncidentWithUpdates, incidentWithUpdates } from "./json.ts";
import {
  COMPONENTS,
  type ComponentState,
  type Impact,
  isClosedStatus,
  isComponentState,
  overallIndicator,
  worse,
} from "./model.ts";

export const HISTORY_DAYS = 90;

export interface DayBar {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  /** Share of the day's probe rounds the component was up (not in an outage), or null without rounds. */
  uptime: number | null;
  /** The worst state a round saw that day. */
  worst: ComponentState | null;
}

export interface ComponentView {
  id: string;
  name: string;
  description: string;
  /** What the page shows: staff's override, else the worse of the probes' and the incidents'. */
  state: ComponentState;
  derivedState: ComponentState;
  detail: string | null;
  checkedAt: Date | null;
  overrideState: ComponentState | null;
  overrideNote: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The last 90 days, oldest first. */
  history: DayBar[];
  /** Up share over the 90 days, or null without rounds. */
  uptime: number | null;
}

/** What the status page shows, read at once; kept as the last good answer. */
export interface StatusSnapshot {
  /** When it was read from the database. */
  takenAt: Date;
  /** The newest change it shows (the page's `updated_at`). */
  updatedAt: Date;
  indicator: Impact;
  description: string;
  components: ComponentView[];
  /** Incidents not resolved, newest first. */
  activeIncidents: IncidentWithUpdates[];
  /** Maintenances scheduled or in progress, soonest first. */
  openMaintenances: IncidentWithUpdates[];
  /** The 50 most recent incidents and maintenances, newest first. */
  incidents: IncidentWithUpdates[];
  maintenances: IncidentWithUpdates[];
}

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The 90 UTC days ending today, oldest first. */
export function historyDays(now: Date): string[] {
  const days: string[] = [];
  for (let back = HISTORY_DAYS - 1; back >= 0; back--) {
    days.push(dayOf(new Date(now.getTime() - back * 86_400_000)));
  }
  return days;
}

/** Reads the whole snapshot from the database; throws when it cannot. */
export async function readSnapshot(db: Db, now = new Date()): Promise<StatusSnapshot> {
  const days = historyDays(now);
  const [rows, uptimeRows, recent, upcoming] = await Promise.all([
    db.select().from(statusComponents),
    db.select().from(statusDailyUptime).where(gte(statusDailyUptime.day, days[0]!)),
    recentIncidents(db, 50),
    db
      .select()
      .from(statusIncidents)
      .where(eq(statusIncidents.kind, "maintenance"))
      .orderBy(desc(statusIncidents.createdAt))
      .limit(50),
  ]);
  const incidents = recent.filter((entry) => entry.incident.kind !== "maintenance");
  const maintenances = await Promise.all(upcoming.map((row) => incidentWithUpdates(db, row)));
  const activeIncidents = incidents.filter((entry) => !isClosedStatus(entry.incident.status));
  const openMaintenances = maintenances
    .filter((entry) => !isClosedStatus(entry.incident.status))
    .sort(
      (a, b) =>
        (a.incident.scheduledFor?.getTime() ?? 0) - (b.incident.scheduledFor?.getTime() ?? 0),
    );
  // The states open incidents and maintenances in progress give their components.
  const fromIncidents = new Map<string, ComponentState>();
  for (const entry of [...activeIncidents, ...openMaintenances]) {
    if (entry.incident.kind === "maintenance" && entry.incident.status === "scheduled") continue;
    for (const affected of entry.incident.components) {
      if (!isComponentState(affected.status)) continue;
      fromIncidents.set(
        affected.id,
        worse(fromIncidents.get(affected.id) ?? "operational", affected.status),
      );
    }
  }
  let updatedAt = new Date(0);
  const components = COMPONENTS.map((component): ComponentView => {
    const row = rows.find((candidate) => candidate.id === component.id);
    const derivedState = isComponentState(row?.derivedState) ? row.derivedState : "operational";
    const overrideState = isComponentState(row?.overrideState) ? row.overrideState : null;
    const incidentState = fromIncidents.get(component.id);
    const state =
      overrideState ?? (incidentState ? worse(derivedState, incidentState) : derivedState);
    const byDay = new Map(
      uptimeRows.filter((day) => day.componentId === component.id).map((day) => [day.day, day]),
    );
    let rounds = 0;
    let up = 0;
    const history = days.map((day): DayBar => {
      const counted = byDay.get(day);
      if (!counted || counted.rounds === 0) return { day, uptime: null, worst: null };
      const dayUp = counted.rounds - counted.majorOutage - counted.partialOutage * 0.5;
      rounds += counted.rounds;
      up += dayUp;
      const worst: ComponentState =
        counted.majorOutage > 0
          ? "major_outage"
          : counted.partialOutage > 0
            ? "partial_outage"
            : counted.degraded > 0
              ? "degraded_performance"
              : "operational";
      return { day, uptime: dayUp / counted.rounds, worst };
    });
    const changedAt = row?.updatedAt ?? now;
    if (changedAt > updatedAt) updatedAt = changedAt;
    return {
      id: component.id,
      name: component.name,
      description: component.description,
      state,
      derivedState,
      detail: row?.detail ?? null,
      checkedAt: row?.checkedAt ?? null,
      overrideState,
      overrideNote: row?.overrideNote ?? null,
      createdAt: row?.createdAt ?? now,
      updatedAt: changedAt,
      history,
      uptime: rounds > 0 ? up / rounds : null,
    };
  });
  for (const entry of [...incidents, ...maintenances]) {
    if (entry.incident.updatedAt > updatedAt) updatedAt = entry.incident.updatedAt;
  }
  const { indicator, description } = overallIndicator(components.map((c) => c.state));
  return {
    takenAt: now,
    updatedAt,
    indicator,
    description,
    components,
    activeIncidents,
    openMaintenances,
    incidents,
    maintenances,
  };
}

/** The snapshot the page is served from: fresh, or the last good one with the database away. */
export interface ServedSnapshot {
  snapshot: StatusSnapshot | null;
  /** The database did not answer the last read: `snapshot` is the last one known. */
  stale: boolean;
}

/**
 * Keeps the last good snapshot and reads a new one at most every `maxAgeMs` (concurrent asks
 * share one read). When the database does not answer, the last good one is served as stale.
 */
export class SnapshotCache {
  private last: StatusSnapshot | null = null;
  private readAt = 0;
  private stale = false;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly maxAgeMs = 3_000,
    private readonly readTimeoutMs = 3_000,
  ) {}

  /** Forgets the age: the next ask reads (after a change staff made). */
  invalidate(): void {
    this.readAt = 0;
  }

  async get(): Promise<ServedSnapshot> {
    if (Date.now() - this.readAt >= this.maxAgeMs) {
      this.reading ??= this.refresh().finally(() => {
        this.reading = null;
      });
      await this.reading;
    }
    return { snapshot: this.last, stale: this.stale };
  }

  private async refresh(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("database read timed out")), this.readTimeoutMs);
      });
      this.last = await Promise.race([readSnapshot(this.db), timeout]);
      this.stale = false;
    } catch (error) {
      if (!this.stale) {
        log.warn("status page: the database did not answer; serving the last known status", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      this.stale = true;
    } finally {
      clearTimeout(timer);
      this.readAt = Date.now();
    }
  }
}
