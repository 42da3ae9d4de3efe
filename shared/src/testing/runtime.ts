import type { EventBus } from "../bus/index.ts";
import { MemoryBus } from "../bus/memory.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/index.ts";
import { MemoryRateLimitStore, type RateLimitStore } from "../rate-limit.ts";
import type { Runtime } from "../runtime.ts";

export interface TestRuntimeParts {
  /** The test's database; its owner closes it (it is often shared by several runtimes). */
  database: Database;
  config: Config;
  /** Default: a new in-process bus. */
  bus?: EventBus;
  /** Default: counters in memory. */
  rateLimits?: RateLimitStore;
}

/**
 * The runtime a test hands to a service factory, as `openRuntime` would build it but over the
 * test's own database, config and (if given) bus and rate-limit store. `close` closes only what
 * it made itself: what the test passed in is closed by the test.
 */
export function testRuntime(parts: TestRuntimeParts): Runtime {
  const bus = parts.bus ?? new MemoryBus();
  const rateLimits = parts.rateLimits ?? new MemoryRateLimitStore();
  return {
    config: parts.config,
    database: parts.database,
    bus,
    rateLimits,
    close: async () => {
      if (!parts.bus) await bus.close();
      if (!parts.rateLimits) await rateLimits.close();
    },
  };
}
