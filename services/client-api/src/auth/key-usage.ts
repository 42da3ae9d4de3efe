import type { Db } from "@newsroom/shared/db/index";
import { log } from "@newsroom/shared/log";
import { recordKeyUses } from "./store.ts";

export interface KeyUsageOptions {
  /** How often pending uses are written, in milliseconds. */
  flushEveryMs?: number;
  /** A key whose recorded last use is younger than this is not recorded again, in ms. */
  resolutionMs?: number;
}

/**
 * Key use (`api_key_usage`) without a database write per request: a use is kept in memory (at most one
 * entry per key), skipped while the stored value is fresh enough, and written in one statement
 * per interval and on stop. The date therefore moves with a resolution of about a minute, which is
 * what key rotation needs ("the old key's last-used date stops moving").
 */
export class KeyUsage {
  private pending = new Map<string, Date>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private flushing: Promise<void> = Promise.resolve();
  readonly flushEveryMs: number;
  readonly resolutionMs: number;

  constructor(
    private readonly db: Db | undefined,
    options: KeyUsageOptions = {},
  ) {
    this.flushEveryMs = options.flushEveryMs ?? 30_000;
    this.resolutionMs = options.resolutionMs ?? 60_000;
  }

  /**
   * Notes that a key was used at `now`; `stored` is its last use as last read. Returns
   * whether the use was recorded (false while the stored value is fresh enough).
   */
  record(keyId: string, stored: Date | null, now = new Date()): boolean {
    if (stored && now.getTime() - stored.getTime() < this.resolutionMs) return false;
    const previous = this.pending.get(keyId);
    if (!previous || previous < now) this.pending.set(keyId, now);
    return true;
  }

  /** Uses waiting to be written. */
  get pendingCount(): number {
    return this.pending.size;
  }

  start(): void {
    if (this.timer || !this.db) return;
    this.timer = setInterval(() => void this.flush(), this.flushEveryMs);
    this.timer.unref?.();
  }

  /** Writes every pending use. A failed write keeps them for the next try. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    if (!this.db || this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await recordKeyUses(
        this.db,
        [...batch].map(([keyId, at]) => ({ keyId, at })),
      );
    } catch (error) {
      for (const [keyId, at] of batch) {
        const newer = this.pending.get(keyId);
        if (!newer || newer < at) this.pending.set(keyId, at);
      }
      log.warn("could not record key use; will retry", {
        keys: batch.size,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Stops the timer and writes what is pending. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
