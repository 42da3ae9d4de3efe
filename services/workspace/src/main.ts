import { loadConfigOrExit } from "@newsroom/shared/config";
import { log } from "@newsroom/shared/log";
import { serveMetrics } from "@newsroom/shared/metrics";
import { openRuntime } from "@newsroom/shared/runtime";
import { onShutdown } from "@newsroom/shared/service";
import { startTracing } from "@newsroom/shared/tracing/setup";
import { createWorkspaceService } from "./app.ts";
import { WorkspaceConfig } from "./config.ts";
import { serveWorkspace } from "./server.ts";

/**
 * The workspace as its own process (distributed mode). Unlike the other services it listens on
 * WORKSPACE_PORT, not PORT (the gateway's, the default of the links), so not through runService.
 */
const config = loadConfigOrExit(WorkspaceConfig);
// Its commands go to the services that own webhooks and mailings, previews to public-read: without their addresses those
// pages and routes answer 503, which only a development setup may accept.
for (const variable of ["WEBHOOKS_URL", "FORMS_URL", "PUBLIC_READ_URL"] as const) {
  if (config[variable]) continue;
  if (config.SERVICE_ENV !== "development") {
    console.error(`${variable} is required: the workspace sends its commands there.`);
    process.exit(1);
  }
  log.warn(`${variable} is not set: the routes that need that service answer 503`);
}
await startTracing(config, "workspace");
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
