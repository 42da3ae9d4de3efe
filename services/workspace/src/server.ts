import { edge } from "@newsroom/shared/http/edge";
import { SERVER_SAFETY } from "@newsroom/shared/http/server-safety";
import { pathOf } from "@newsroom/shared/http/urls";
import { serviceEntry } from "@newsroom/shared/service";
import { serveOn } from "@newsroom/shared/startup";
import type { WorkspaceService } from "./app.ts";
import type { WorkspaceConfig } from "./config.ts";
import { isWebAppPath } from "./web/app.ts";

/**
 * Serves the workspace on WORKSPACE_PORT at `hostname` (0.0.0.0 as its own process, 127.0.0.1 in
 * the embedded start): the web app under /app, the internal API for the rest. Used by main.ts and
 * the embedded start; `stop` stops listening, the service's own `stop` its work.
 */
export function serveWorkspace(
  config: Pick<WorkspaceConfig, "WORKSPACE_PORT" | "TRUSTED_PROXIES" | "GATEWAY_ADDRESSES">,
  workspace: WorkspaceService,
  options: { hostname: string },
) {
  const api = serviceEntry(workspace);
  const server = serveOn("WORKSPACE_PORT", {
    ...SERVER_SAFETY,
    port: config.WORKSPACE_PORT,
    hostname: options.hostname,
    // Behind the gateway: its X-Client-Ip is the person's address, for the sign-in throttles.
    fetch: edge(
      (request) =>
        isWebAppPath(pathOf(request.url)) ? workspace.web.handle(request) : api(request),
      {
        trustedProxies: config.TRUSTED_PROXIES,
        behindGateway: true,
        gatewayAddresses: config.GATEWAY_ADDRESSES,
      },
    ),
  });
  return {
    url: `http://${options.hostname}:${server.port}`,
    stop: async () => {
      await server.stop();
    },
  };
}
