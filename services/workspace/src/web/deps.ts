import type { EventBus } from "@newsroom/shared/bus/index";
import type { Config } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import type { Mailer } from "@newsroom/shared/mailer";
import type { RateLimitStore } from "@newsroom/shared/rate-limit";
import type { WorkspaceCalls } from "../deps.ts";
import type { TxtLookup } from "../identity/sso/domains.ts";
import type { StatusModule } from "../status/public-routes.ts";

/** What the workspace web app needs. */
export interface WebDeps {
  db: Db;
  bus: EventBus;
  rateLimits: RateLimitStore;
  /** Sends sign-in codes; null when email is not configured. */
  mailer: Mailer | null;
  secretsKey: Buffer;
  /** APP_URL without a trailing slash. */
  appUrl: string;
  /** HOUSE_ORG: its owners and admins are staff. */
  houseOrg: string;
  /** PUBLIC_BASE_URL: the API's public address, for the newsletter embed snippet. */
  publicBaseUrl: string;
  /** NEWSROOM_HOST: hosted sites live at `{NEWSROOM_HOST}/{site}` until a hostname is active. */
  newsroomHost: string;
  /** Asks the outbox relay for a pass after an event was written. */
  kickRelay: () => void;
  /** The least lead of a schedule in seconds (SCHEDULE_MIN_LEAD_SECONDS); one minute unless set. */
  scheduleMinLeadSeconds?: number;
  now: () => Date;
  /** SERVICE_ENV: the one key environment this deployment creates and accepts. */
  serviceEnv: Config["SERVICE_ENV"];
  /** Looks up the TXT records that prove a single sign-on domain (DNS_RESOLVERS). */
  lookupTxt: TxtLookup;
  /** The services that own what the workspace manages, through their internal APIs. */
  calls: WorkspaceCalls;
  /** The status page: its public pages and JSON, and the staff pages under /app/status. */
  status?: StatusModule;
}
