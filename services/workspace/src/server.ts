import type { EventBus } from "@newsroom/shared/bus/index";
import { adminToken, type Config, secretsKey } from "@newsroom/shared/config";
import type { Db } from "@newsroom/shared/db/index";
import { edge, SERVER_SAFETY } from "@newsroom/shared/http";
import { serveOn } from "@newsroom/shared/startup";
import { createWorkspaceApp } from "./app.ts";
import { startOutboxRelay } from "./outbox/relay.ts";

/** Starts the workspace API and its outbox relay; used by main.ts and the embedded start. */
export function startWorkspace(
  config: Config,
  db: Db,
  bus: EventBus,
  options: { hostname: string },
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
  const server = serveOn("WORKSPACE_PORT", {
    ...SERVER_SAFETY,
    port: config.WORKSPACE_PORT,
    hostname: options.hostname,
    fetch: edge((request) => app.handle(request), { trustedProxies: config.TRUSTED_PROXIES }),
  });
  return {
    url: `http://${options.hostname}:${server.port}`,
    stop: async () => {
      await server.stop();
      await relay.stop();
    },
  };
}
