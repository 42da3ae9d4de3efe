import { loadConfigOrExit } from "@newsroom/shared/config";
import { log } from "@newsroom/shared/log";
import { serveMetrics } from "@newsroom/shared/metrics";
import { openRuntime } from "@newsroom/shared/runtime";
import { onShutdown } from "@newsroom/shared/service";
import { WorkspaceConfig } from "./config.ts";
import { startWorkspace } from "./server.ts";

/** The workspace as its own process (distributed mode). */
const config = loadConfigOrExit(WorkspaceConfig);
const runtime = await openRuntime(config);
const workspace = startWorkspace(config, runtime.database.db, runtime.bus, {
  hostname: "0.0.0.0",
  rateLimits: runtime.rateLimits,
});
log.info("workspace listening", { url: workspace.url });

const metrics = config.METRICS_PORT ? serveMetrics(config.METRICS_PORT) : null;

onShutdown("workspace", async () => {
  await workspace.stop();
  await runtime.close();
  metrics?.stop(true);
});
