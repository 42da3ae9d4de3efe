import type { EventBus } from "@newsroom/shared/bus/index";
import type { Config } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import type { InternalClient } from "@newsroom/shared/http/internal-client";
import type { TxtLookup } from "./identity/sso/domains.ts";
import type { PublicAddresses } from "./sites/public-pages.ts";
import type { StatusWriteContext } from "./status/incidents.ts";

/** What the workspace's routes need. */
export interface WorkspaceDeps {
  db: Db;
  bus: EventBus;
  secretsKey: Buffer;
  adminToken: string;
  /** SERVICE_ENV: which keys this deployment may create, and whether sandbox data may be made. */
  serviceEnv: Config["SERVICE_ENV"];
  /** Asks the outbox relay for a pass after an event was written. */
  kickRelay: () => void;
  /** The least lead of a schedule in seconds (SCHEDULE_MIN_LEAD_SECONDS); one minute unless set. */
  scheduleMinLeadSeconds?: number;
  /** Looks up single sign-on domain proofs (DNS_RESOLVERS); unset: the system's resolvers. */
  lookupTxt?: TxtLookup;
  /** The services that own what the workspace manages, through their internal APIs. */
  calls: WorkspaceCalls;
  /** HOUSE_ORG and NEWSROOM_HOST: where preview links live. */
  addresses: PublicAddresses;
  /** The status page's incidents (its internal API); absent, those routes are not mounted. */
  status?: StatusWriteContext;
}

/** The internal APIs the workspace sends its commands to (see `workspaceCalls` in app.ts). */
export interface WorkspaceCalls {
  /** Webhook endpoints, secrets, test events, resends and recoveries. */
  webhooks: InternalClient;
  /** Mailing lists, the digest and organization newsletters. */
  forms: InternalClient;
  /** Story previews through the public page template. */
  publicRead: InternalClient;
}
