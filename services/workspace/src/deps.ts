import type { EventBus } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";

/** What the workspace's routes need. */
export interface WorkspaceDeps {
  db: Db;
  bus: EventBus;
  secretsKey: Buffer;
  adminToken: string;
  allowInsecureTargets: boolean;
  /** Asks the outbox relay for a pass after an event was written. */
  kickRelay: () => void;
}
