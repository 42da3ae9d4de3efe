import { MAX_KEPT_TARGET_LENGTH } from "./public-answers.ts";

/**
 * What a service remembers about the request targets (path and query) its router answered, so
 * that the same target is answered again without routing it and checking its parameters: the
 * same target always parses to the same parameters. Bounded: a target longer than
 * MAX_KEPT_TARGET_LENGTH is not remembered, and a full memory starts over (random targets cannot
 * grow it, and the targets in use come back on their next request).
 */
export class KnownTargets<V> {
  private readonly targets = new Map<string, V>();

  constructor(readonly maxTargets: number) {}

  /** How many targets it remembers. */
  get size(): number {
    return this.targets.size;
  }

  get(target: string): V | undefined {
    return this.targets.get(target);
  }

  remember(target: string, value: V): void {
    if (target.length > MAX_KEPT_TARGET_LENGTH) return;
    if (this.targets.size >= this.maxTargets && !this.targets.has(target)) this.targets.clear();
    this.targets.set(target, value);
  }

  clear(): void {
    this.targets.clear();
  }
}
