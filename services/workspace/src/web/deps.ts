import type { EventBus } from "@newsroom/shared/bus/index";
import type { Db } from "@newsroom/shared/db/index";
import type { Mailer } from "@newsroom/shared/mailer";
import type { RateLimitStore } from "@newsroom/shared/rate-limit";

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
  /** Asks the outbox relay for a pass after an event was written. */
  kickRelay: () => void;
  now: () => Date;
}
