import { httpKit } from "@newsroom/shared/http/http-kit";
import { log } from "@newsroom/shared/log";
import { openMailer } from "@newsroom/shared/mailer";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";
import { careersRoutes } from "./careers/routes.ts";
import type { FormsConfig } from "./config.ts";
import { contactRoutes } from "./contact/routes.ts";
import type { FormsDeps } from "./deps.ts";
import { digestRoutes } from "./digest/routes.ts";
import { embedRoutes } from "./embed/routes.ts";
import { openHumanCheck } from "./human-check.ts";
import { mailingsRoutes } from "./mailings/routes.ts";
import { mappingCallRoutes } from "./mapping-call/routes.ts";
import { openContactLists } from "./newsletter/contact-lists.ts";
import { newsletterRoutes } from "./newsletter/routes.ts";
import { errorAsPage } from "./request/error-pages.ts";
import { statusRoutes } from "./status/routes.ts";
import { startStatusUpdatesConsumer } from "./status/updates.ts";
import { startSweeper } from "./sweep.ts";
import { unsubscribeRoutes } from "./unsubscribe/routes.ts";

export interface FormsOptions {
  /** The clock (tests move it). */
  now?: () => Date;
  /** Run the sweep of expired records (default true). */
  sweep?: boolean;
}

/**
 * Website forms, the digest and organization newsletters (subscriptions and sends), the status
 * page's email subscribers and their update emails, embed.js.
 */
export async function createFormsService(
  runtime: Runtime<FormsConfig>,
  options: FormsOptions = {},
): Promise<ServiceHandle> {
  const deps: FormsDeps = {
    config: runtime.config,
    db: runtime.database.db,
    rateLimits: runtime.rateLimits,
    mailer: openMailer(runtime.config),
    humanCheck: openHumanCheck(runtime.config),
    contactLists: openContactLists(runtime.config),
    now: options.now ?? (() => new Date()),
  };
  // Expected in development (the local emulator has no contact lists): not a warning on every start.
  if (deps.mailer && !deps.contactLists) {
    const note = runtime.config.SERVICE_ENV === "development" ? log.debug : log.warn;
    note("no SES contact lists here: organization subscribers are recorded only as hashes");
  }
  // Failures of a request a person makes from an email link are pages (request/error-pages.ts).
  const kit = httpKit("forms", { renderError: errorAsPage });
  const app = new Elysia({ name: "forms" })
    .use(kit)
    .get("/health", () => ({ status: "ok", service: "forms" }))
    .use(contactRoutes(deps))
    .use(careersRoutes(deps))
    .use(mappingCallRoutes(deps))
    .use(digestRoutes(deps))
    .use(newsletterRoutes(deps))
    .use(unsubscribeRoutes(deps))
    .use(statusRoutes(deps))
    .use(embedRoutes())
    .use(mailingsRoutes(deps));
  kit.bindRoutes(app);
  const stopSweeper = options.sweep === false ? () => {} : startSweeper(deps);
  // The status page's updates, emailed to its subscribers (in-process bus or JetStream).
  const statusUpdates = await startStatusUpdatesConsumer(deps, runtime.bus);
  return {
    name: "forms",
    app,
    readiness: [{ name: "database", check: () => runtime.database.ping() }],
    stop: async () => {
      stopSweeper();
      await statusUpdates.stop();
    },
  };
}
