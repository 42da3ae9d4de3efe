import type { EventBus } from "@newsroom/shared/bus/index";
import { adminToken, appUrl, secretsKey } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { edge, SERVER_SAFETY } from "@newsroom/shared/http/edge";
import { pathOf } from "@newsroom/shared/http/urls";
import { openMailer } from "@newsroom/shared/mailer";
import type { RateLimitStore } from "@newsroom/shared/rate-limit";
import { serveOn } from "@newsroom/shared/startup";
import { createWorkspaceApp } from "./app.ts";
import type { WorkspaceConfig } from "./config.ts";
import { startOutboxRelay } from "./outbox/relay.ts";
import { createWebApp, isWebAppPath } from "./web/app.ts";

/**
 * Starts the workspace (the internal API and the people's web app under /app, on one port) and
 * its outbox relay; used by main.ts and the embedded start. `web` is the web app alone, for a
 * gateway in the same process.
 */
export function startWorkspace(
  config: WorkspaceConfig,
  db: Db,
  bus: EventBus,
  options: { hostname: string; rateLimits: RateLimitStore; now?: () => Date },
) {
  const relay = startOutboxRelay(db, bus);
  const app = createWorkspaceApp(
    {
      db,
      bus,
      secretsKey: secretsKey(config),
      adminToken: adminToken(config),
      serviceEnv: config.SERVICE_ENV,
      allowInsecureTargets: config.WEBHOOK_ALLOW_INSECURE_TARGETS,
      kickRelay: relay.kick,
    },
    { digest: { config } },
  );
  const web = createWebApp({
    db,
    bus,
    rateLimits: options.rateLimits,
    mailer: openMailer(config),
    secretsKey: secretsKey(config),
    appUrl: appUrl(config),
    houseOrg: config.HOUSE_ORG,
    publicBaseUrl: config.PUBLIC_BASE_URL.replace(/\/+$/, ""),
    newsroomHost: config.NEWSROOM_HOST,
    kickRelay: relay.kick,
    now: options.now ?? (() => new Date()),
    serviceEnv: config.SERVICE_ENV,
    allowInsecureTargets: config.WEBHOOK_ALLOW_INSECURE_TARGETS,
  });
  const server = serveOn("WORKSPACE_PORT", {
    ...SERVER_SAFETY,
    port: config.WORKSPACE_PORT,
    hostname: options.hostname,
    // Behind the gateway: its X-Client-Ip is the person's address, for the sign-in throttles.
    fetch: edge(
      (request) => (isWebAppPath(pathOf(request.url)) ? web.handle(request) : app.handle(request)),
      {
        trustedProxies: config.TRUSTED_PROXIES,
        behindGateway: true,
        gatewayAddresses: config.GATEWAY_ADDRESSES,
      },
    ),
  });
  return {
    url: `http://${options.hostname}:${server.port}`,
    web,
    stop: async () => {
      await server.stop();
      await relay.stop();
      await web.signIn.idle();
    },
  };
}
