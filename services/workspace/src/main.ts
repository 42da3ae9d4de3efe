import { loadConfigOrExit } from "@newsroom/shared/config";
import { log } from "@newsroom/shared/log";
import { serveMetrics } from "@newsroom/shared/metrics";
import { openRuntime } from "@newsroom/shared/runtime";
import { onShutdown } from "@newsroom/shared/service";
import { createWorkspaceService } from "./app.ts";
import { WorkspaceConfig } from "./config.ts";
import { serveWorkspace } from "./server.ts";

/**
 * The workspace as its own process (distributed mode). Unlike the other services it listens on
 * WORKSPACE_PORT, not PORT (the gateway's, the default of the links), so not through runService.
 */
const config = loadConfigOrExit(WorkspaceConfig);
const runtime = await openRuntime(config);
const workspace = await createWorkspaceService(runtime);
const server = serveWorkspace(config, workspace, { hostname: "0.0.0.0" });
log.info("workspace listening", { url: server.url });

const metrics = config.METRICS_PORT ? serveMetrics(config.METRICS_PORT) : null;

onShutdown("workspace", async () => {
  await server.stop();
  await workspace.stop();
  await runtime.close();
  metrics?.stop(true);
});
