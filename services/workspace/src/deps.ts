import type { EventBus } from "@newsroom/shared/bus/index";
import type { Config, InsecureTargets } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import type { TxtLookup } from "./sso/domains.ts";

/** What the workspace's routes need. */
export interface WorkspaceDeps {
  db: Db;
  bus: EventBus;
  secretsKey: Buffer;
  adminToken: string;
  /** SERVICE_ENV: which keys this deployment may create, and whether sandbox data may be made. */
  serviceEnv: Config["SERVICE_ENV"];
  allowInsecureTargets: InsecureTargets;
  /** Asks the outbox relay for a pass after an event was written. */
  kickRelay: () => void;
  /** Looks up single sign-on domain proofs (DNS_RESOLVERS); unset: the system's resolvers. */
  lookupTxt?: TxtLookup;
}
