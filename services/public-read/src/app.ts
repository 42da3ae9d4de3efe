import { httpKit } from "@newsroom/shared/http";
import type { Runtime } from "@newsroom/shared/runtime";
import type { ServiceHandle } from "@newsroom/shared/service";
import { Elysia } from "elysia";

/** Public news reads, hosted newsrooms, hostnames, sitemaps, search documents, checkout summary. */
export async function createPublicReadService(runtime: Runtime): Promise<ServiceHandle> {
  const kit = httpKit("public-read");
  const app = new Elysia({ name: "public-read" })
    .use(kit)
    .get("/health", () => ({ status: "ok", service: "public-read" }));
  kit.bindRoutes(app);
  return {
    name: "public-read",
    app,
    readiness: [{ name: "database", check: () => runtime.database.ping() }],
    stop: async () => {},
  };
}
