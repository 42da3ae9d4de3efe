import { ApiError } from "@newsroom/shared/errors";
import { edge, type FetchHandler } from "@newsroom/shared/http/edge";
import { serverOptions } from "@newsroom/shared/http/server-safety";
import { pathOf } from "@newsroom/shared/http/urls";
import { serviceEntry } from "@newsroom/shared/service";
import { type PortVariable, serveOn } from "@newsroom/shared/startup";
import type { WorkspaceService } from "./app.ts";
import type { WorkspaceConfig } from "./config.ts";
import { isWebAppPath } from "./web/app.ts";

/**
 * Serves the workspace at `hostname` (0.0.0.0 as its own process, 127.0.0.1 in the embedded
 * start): the web app under /app, the internal API for the rest, both on WORKSPACE_PORT; or, with
 * WORKSPACE_WEB_PORT, the web app alone there and the internal API alone on WORKSPACE_PORT. Used
 * by main.ts and the embedded start; `stop` stops listening, the service's own `stop` its work.
 */
export function serveWorkspace(
  config: Pick<
    WorkspaceConfig,
    | "WORKSPACE_PORT"
    | "WORKSPACE_WEB_PORT"
    | "TRUSTED_PROXIES"
    | "GATEWAY_ADDRESSES"
    | "HTTP_IDLE_TIMEOUT_SECONDS"
  >,
  workspace: WorkspaceService,
  options: { hostname: string },
) {
  const api = serviceEntry(workspace);
  // Behind the gateway: its X-Client-Ip is the person's address, for the sign-in throttles.
  const fromGateway = {
    trustedProxies: config.TRUSTED_PROXIES,
    behindGateway: true,
    gatewayAddresses: config.GATEWAY_ADDRESSES,
  };
  const serve = (variable: PortVariable, port: number, fetch: FetchHandler) =>
    serveOn(variable, { ...serverOptions(config), port, hostname: options.hostname, fetch });
  const servers: ReturnType<typeof Bun.serve>[] = [];
  let webUrl: string | undefined;
  if (config.WORKSPACE_WEB_PORT === undefined) {
    const both = (request: Request) =>
      isWebAppPath(pathOf(request.url)) ? workspace.web.handle(request) : api(request);
    servers.push(serve("WORKSPACE_PORT", config.WORKSPACE_PORT, edge(both, fromGateway)));
  } else {
    // The internal API's port is reached by operators, never through the gateway: no one's
    // X-Client-Ip is believed there, and the web app is not on it.
    const apiOnly = (request: Request) => {
      if (isWebAppPath(pathOf(request.url))) throw notHere();
      return api(request);
    };
    servers.push(
      serve(
        "WORKSPACE_PORT",
        config.WORKSPACE_PORT,
        edge(apiOnly, { trustedProxies: config.TRUSTED_PROXIES }),
      ),
    );
    // The web app's port: the web app, and the health routes for the probes.
    const webOnly = (request: Request) => {
      const path = pathOf(request.url);
      if (isWebAppPath(path)) return workspace.web.handle(request);
      if (path === "/health" || path === "/health/ready") return api(request);
      throw notHere();
    };
    const web = serve("WORKSPACE_WEB_PORT", config.WORKSPACE_WEB_PORT, edge(webOnly, fromGateway));
    servers.push(web);
    webUrl = `http://${options.hostname}:${web.port}`;
  }
  const url = `http://${options.hostname}:${servers[0]!.port}`;
  return {
    url,
    /** Where the gateway's WORKSPACE_URL points: the web app's own port, or the one port. */
    webUrl: webUrl ?? url,
    stop: async () => {
      for (const server of servers) await server.stop();
    },
  };
}

function notHere(): ApiError {
  return new ApiError("not_found", "No route matches this path.");
}
