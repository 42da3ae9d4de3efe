import { loadConfigOrExit } from "@newsroom/shared/config";
import { log } from "@newsroom/shared/log";
import { openRuntime } from "@newsroom/shared/runtime";
import { startWorkspace } from "./server.ts";

/** The workspace as its own process (distributed mode). */
const config = loadConfigOrExit();
const runtime = await openRuntime(config);
const workspace = startWorkspace(config, runtime.database.db, runtime.bus, { hostname: "0.0.0.0" });
log.info("workspace listening", { url: workspace.url });

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    await workspace.stop();
    await runtime.close();
    process.exit(0);
  });
}
