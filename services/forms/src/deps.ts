import type { Db } from "@newsroom/shared/db/index";
import type { Mailer } from "@newsroom/shared/mailer";
import type { RateLimitStore } from "@newsroom/shared/rate-limit";
import type { FormsConfig } from "./config.ts";
import type { HumanCheck } from "./human-check.ts";
import type { ContactLists } from "./newsletter/contact-lists.ts";

/** What the forms features need: plain values, no Elysia context. */
export interface FormsDeps {
  config: FormsConfig;
  db: Db;
  rateLimits: RateLimitStore;
  /** Null when email is not configured: the routes answer 503 forms_unavailable. */
  mailer: Mailer | null;
  humanCheck: HumanCheck;
  /** Organizations' SES v2 contact lists; null when there are none (the local SES emulator). */
  contactLists: ContactLists | null;
  /** The clock; tests move it. */
  now: () => Date;
}
