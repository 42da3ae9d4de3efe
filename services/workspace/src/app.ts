import { adminToken, appUrl, secretsKey } from "@newsroom/shared/config";
import { ApiError } from "@newsroom/shared/errors";
import { httpKit } from "@newsroom/shared/http/http-kit";
import { checkAdminToken } from "@newsroom/shared/http/internal-auth";
import { InternalClient, type ServiceCall } from "@newsroom/shared/http/internal-client";
import { pathOf } from "@newsroom/shared/http/urls";
import { log } from "@newsroom/shared/log";
import { openMailer } from "@newsroom/shared/mailer";
import { fieldsWithNul } from "@newsroom/shared/nul-characters";
import { hostedPagesPrefix } from "@newsroom/shared/page-host";
import type { Runtime } from "@newsroom/shared/runtime";
import { readiness, readinessResponse, type ServiceHandle } from "@newsroom/shared/service";
import { sql } from "drizzle-orm";
import { Elysia } from "elysia";
import { assetsRoutes } from "./assets/routes.ts";
import { startCmsFailingConsumer } from "./cms-connections/failing-notice.ts";
import { cmsConnectionsRoutes } from "./cms-connections/routes.ts";
import type { WorkspaceConfig } from "./config.ts";
import type { WorkspaceCalls, WorkspaceDeps } from "./deps.ts";
import { digestRoutes } from "./digest/routes.ts";
import { membersRoutes } from "./identity/members/routes.ts";
import { txtLookup } from "./identity/sso/domains.ts";
import { ssoRoutes } from "./identity/sso/routes.ts";
import { keysRoutes } from "./keys/routes.ts";
import { oauthInternalRoutes } from "./oauth/internal-routes.ts";
import { startOAuthSweeper } from "./oauth/sweep.ts";
import { organizationNewsletterRoutes } from "./organization-newsletter/routes.ts";
import { organizationsRoutes } from "./organizations/routes.ts";
import { startOutboxRelay } from "./outbox/relay.ts";
import { startPreviewOpenedConsumer } from "./preview-links/opened-consumer.ts";
import { previewLinksRoutes } from "./preview-links/routes.ts";
import { sandboxRoutes } from "./sandbox/routes.ts";
import { sitesRoutes } from "./sites/routes.ts";
import type { StatusWriteContext } from "./status/incidents.ts";
import { type ProbeTargets, startStatusProber } from "./status/prober.ts";
import type { StatusModule } from "./status/public-routes.ts";
import { statusInternalRoutes } from "./status/routes.ts";
import { SnapshotCache } from "./status/snapshot.ts";
import { storiesRoutes } from "./stories/routes.ts";
import { startScheduler } from "./stories/scheduler.ts";
import { createWebApp, type WebApp } from "./web/app.ts";
import { webhookDeliveriesRoutes } from "./webhook-deliveries/routes.ts";
import { startEndpointAlertConsumer } from "./webhook-endpoints/alert-notice.ts";
import { startEndpointDisabledConsumer } from "./webhook-endpoints/disabled-notice.ts";
import { webhookEndpointsRoutes } from "./webhook-endpoints/routes.ts";

/** The workspace internal API: never behind the public gateway; every route needs ADMIN_TOKEN. */
export function createWorkspaceApp(deps: WorkspaceDeps) {
  const kit = httpKit("workspace");
  const app = new Elysia({ name: "workspace" })
    .use(kit)
    .get("/health", () => ({ status: "ok", service: "workspace" }))
    .get(
      "/health/ready",
      readinessResponse(
        readiness([
          { name: "database", check: async () => void (await deps.db.execute(sql`select 1`)) },
        ]),
      ),
    )
    .onRequest(({ request }) => {
      if (pathOf(request.url).startsWith("/internal/")) {
        checkAdminToken(request.headers.get("authorization"), deps.adminToken);
      }
    })
    .onTransform(({ body, params }) => refuseNulCharacters(body, params))
    .use(organizationsRoutes(deps))
    .use(membersRoutes(deps))
    .use(sitesRoutes(deps))
    .use(keysRoutes(deps))
    .use(storiesRoutes(deps))
    .use(previewLinksRoutes(deps))
    .use(assetsRoutes(deps))
    .use(webhookEndpointsRoutes(deps))
    .use(webhookDeliveriesRoutes(deps))
    .use(cmsConnectionsRoutes(deps))
    .use(ssoRoutes(deps))
    .use(sandboxRoutes(deps))
    .use(digestRoutes(deps))
    .use(organizationNewsletterRoutes(deps))
    .use(oauthInternalRoutes(deps))
    .use(deps.status ? statusInternalRoutes(deps.status) : new Elysia());
  kit.bindRoutes(app);
  return app;
}

/**
 * The workspace as a service: `app` is the internal API, `web` the people's web app under /app.
 * Both listen on WORKSPACE_PORT (`serveWorkspace` in server.ts); in the embedded start the
 * gateway also mounts `web`. Its outbox relay and story scheduler run until `stop`.
 */
export interface WorkspaceService extends ServiceHandle {
  web: WebApp;
}

export interface WorkspaceServiceOptions {
  /** The clock of sign-in codes and sessions (tests move it). */
  now?: () => Date;
  /** Embedded mode: the owning services' apps in this process, instead of their URLs. */
  inProcess?: Partial<Record<keyof WorkspaceCalls, ServiceCall>>;
}

/**
 * The internal APIs the workspace sends commands to: in this process when given (the embedded
 * start), else at WEBHOOKS_URL, FORMS_URL and PUBLIC_READ_URL. One that is neither answers 503
 * to every call.
 */
export function workspaceCalls(
  config: Pick<WorkspaceConfig, "WEBHOOKS_URL" | "FORMS_URL" | "PUBLIC_READ_URL" | "ADMIN_TOKEN">,
  inProcess: WorkspaceServiceOptions["inProcess"] = {},
): WorkspaceCalls {
  const token = adminToken(config);
  const target = (given: ServiceCall | undefined, url: string | undefined, variable: string) =>
    given ?? url ?? notConfigured(variable);
  return {
    webhooks: new InternalClient(
      "webhooks",
      target(inProcess.webhooks, config.WEBHOOKS_URL, "WEBHOOKS_URL"),
      token,
    ),
    forms: new InternalClient(
      "forms",
      target(inProcess.forms, config.FORMS_URL, "FORMS_URL"),
      token,
    ),
    publicRead: new InternalClient(
      "public-read",
      target(inProcess.publicRead, config.PUBLIC_READ_URL, "PUBLIC_READ_URL"),
      token,
    ),
  };
}

function notConfigured(variable: string): ServiceCall {
  return () => {
    throw new Error(`${variable} is not set`);
  };
}

/** The workspace: organizations, sites, keys, stories, endpoints, people; with its outbox relay. */
export async function createWorkspaceService(
  runtime: Runtime<WorkspaceConfig>,
  options: WorkspaceServiceOptions = {},
): Promise<WorkspaceService> {
  const { config, bus } = runtime;
  const { db } = runtime.database;
  const relay = startOutboxRelay(db, bus);
  const mailer = openMailer(config);
  const scheduler = startScheduler(db, {
    lateLimitSeconds: config.SCHEDULE_LATE_LIMIT_SECONDS,
    onEvent: relay.kick,
    mailer,
    appUrl: appUrl(config),
  });
  // The webhooks service's word that it disabled an endpoint: the audit row and the email.
  const endpointDisabled = await startEndpointDisabledConsumer(
    { db, mailer, appUrl: appUrl(config) },
    bus,
  );
  // Public reads' word that a preview link was opened: its times and count.
  const previewOpened = await startPreviewOpenedConsumer(db, bus);
  // Its alerts (failing, a delivery exhausted): the audit row and the email.
  const endpointAlerts = await startEndpointAlertConsumer(
    { db, mailer, appUrl: appUrl(config) },
    bus,
  );
  // Expired OAuth codes, device authorizations and tokens: deleted a day after their end.
  const oauthSweeper = startOAuthSweeper(db, options.now ?? (() => new Date()), (error) =>
    log.warn("oauth sweep failed; will retry", {
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  // The webhooks service's word that writes into a client's CMS keep failing: audit and email.
  const cmsFailing = await startCmsFailingConsumer({ db, mailer, appUrl: appUrl(config) }, bus);
  const lookupTxt = txtLookup(config.DNS_RESOLVERS);
  const addresses = { houseOrg: config.HOUSE_ORG, newsroomHost: config.NEWSROOM_HOST };
  const calls = workspaceCalls(config, options.inProcess);
  const snapshots = new SnapshotCache(db);
  const status: StatusWriteContext = {
    db,
    houseOrg: config.HOUSE_ORG,
    publicBaseUrl: config.PUBLIC_BASE_URL.replace(/\/+$/, ""),
    kickRelay: relay.kickStatus,
    changed: () => snapshots.invalidate(),
  };
  // The status page's probes: each process's readiness (over HTTP when it runs apart, else this
  // process's database, which the embedded start's services share), reads through the gateway,
  // the outbox's age and the webhook delivery queue's lag.
  const ping = () => runtime.database.ping();
  const hosted = hostedPagesPrefix(config);
  const probeTargets: ProbeTargets = {
    processes: [
      {
        name: "public-read",
        components: ["public-newsroom", "hosted-newsrooms"],
        url: config.PUBLIC_READ_URL,
        ready: ping,
      },
      { name: "forms", components: ["forms"], url: config.FORMS_URL, ready: ping },
      { name: "client-api", components: ["client-api"], url: config.CLIENT_API_URL, ready: ping },
      { name: "webhooks", components: ["webhooks"], url: config.WEBHOOKS_URL, ready: ping },
      { name: "workspace", components: ["workspace"], ready: ping },
    ],
    gatewayUrl: config.GATEWAY_URL ?? `http://127.0.0.1:${config.PORT}`,
    reads: [
      { path: "/newsroom", components: ["public-newsroom"] },
      ...(hosted ? [{ path: hosted, components: ["hosted-newsrooms"] as const }] : []),
    ],
    // Read only where the webhooks service is configured (a test may run the workspace alone).
    deliveryQueue:
      options.inProcess?.webhooks || config.WEBHOOKS_URL
        ? () => calls.webhooks.call("GET", "/internal/v1/delivery_queue")
        : undefined,
  };
  const prober = startStatusProber(db, probeTargets, config.STATUS_PROBE_INTERVAL_SECONDS * 1000);
  const statusModule: StatusModule = { snapshots, write: status };
  const app = createWorkspaceApp({
    status,
    db,
    bus,
    secretsKey: secretsKey(config),
    adminToken: adminToken(config),
    serviceEnv: config.SERVICE_ENV,
    kickRelay: relay.kick,
    scheduleMinLeadSeconds: config.SCHEDULE_MIN_LEAD_SECONDS,
    lookupTxt,
    calls,
    addresses,
  });
  const web = createWebApp({
    db,
    bus,
    rateLimits: runtime.rateLimits,
    mailer,
    secretsKey: secretsKey(config),
    appUrl: appUrl(config),
    houseOrg: config.HOUSE_ORG,
    publicBaseUrl: config.PUBLIC_BASE_URL.replace(/\/+$/, ""),
    newsroomHost: config.NEWSROOM_HOST,
    kickRelay: relay.kick,
    scheduleMinLeadSeconds: config.SCHEDULE_MIN_LEAD_SECONDS,
    now: options.now ?? (() => new Date()),
    serviceEnv: config.SERVICE_ENV,
    lookupTxt,
    calls,
    status: statusModule,
  });
  return {
    name: "workspace",
    app,
    web,
    readiness: [{ name: "database", check: () => runtime.database.ping() }],
    stop: async () => {
      await endpointDisabled.stop();
      await previewOpened.stop();
      await endpointAlerts.stop();
      await oauthSweeper.stop();
      await cmsFailing.stop();
      await scheduler.stop();
      await prober.stop();
      await relay.stop();
      await web.signIn.idle();
    },
  };
}

/**
 * Text with U+0000 cannot be stored: a body holding it is refused naming each field, before the
 * schema checks run; an identifier in the path holding it names nothing that exists.
 */
function refuseNulCharacters(body: unknown, params: Record<string, string> | undefined): void {
  if (params && fieldsWithNul(params).length > 0) throw new ApiError("not_found");
  const fields = fieldsWithNul(body);
  if (fields.length === 0) return;
  const message = "Text may not contain the NUL character (U+0000).";
  throw new ApiError("validation_failed", message, {
    fields: fields.map((field) => ({ field, reason: "nul_character", message })),
  });
}
